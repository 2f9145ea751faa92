import { randomBytes } from 'node:crypto';
import type { Pool } from '../../../src/db/pool.ts';
import { createKey } from '../../../src/domain/auth/create-key.ts';

const MIN = 60_000;

export interface TestBooking {
  id?: string;
  mode?: 'test' | 'live';
  organizationId?: string;
  eventTypeId: string;
  memberIds: string[];
  start: string;
  minutes: number;
  bufferBefore?: number;
  bufferAfter?: number;
  status?: string;
}

/** A booking and its member holds, written directly: tests of availability must not depend on booking create. */
export async function insertBooking(pool: Pool, b: TestBooking): Promise<string> {
  const id = b.id ?? `bkg_${randomBytes(8).toString('hex')}`;
  const mode = b.mode ?? 'test';
  const start = new Date(b.start);
  const end = new Date(start.getTime() + b.minutes * MIN);
  const status = b.status ?? 'SCHEDULED';
  await pool.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, assigned_to_id, host_ids)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      b.organizationId ?? 'org_northwind',
      mode,
      b.eventTypeId,
      status,
      start,
      end,
      { name: 'A', email: 'a@example.com' },
      b.memberIds[0],
      b.memberIds,
    ],
  );
  const active = ['DRAFT', 'SCHEDULED', 'PENDING_CONFIRMATION', 'RESCHEDULED'].includes(status);
  for (const m of b.memberIds) {
    await pool.query(
      `insert into booking_members (booking_id, member_id, mode, start_time, during, active) values ($1, $2, $3, $4, tstzrange($5, $6, '[)'), $7)`,
      [
        id,
        m,
        mode,
        start,
        new Date(start.getTime() - (b.bufferBefore ?? 0) * MIN),
        new Date(end.getTime() + (b.bufferAfter ?? 0) * MIN),
        active,
      ],
    );
  }
  return id;
}

/**
 * A hold's record in member_busy_days.holds as hex (src/db/functions/hold_busy_record.sql): its
 * buffered interval's start in epoch ms, the interval's length and the booking's start after it.
 */
export function busyRecordHex(intervalStartMs: number, lengthMs: number, bookingAfterMs = 0): string {
  return (
    intervalStartMs.toString(16).padStart(16, '0') + lengthMs.toString(16).padStart(8, '0') + bookingAfterMs.toString(16).padStart(8, '0')
  );
}

export async function insertOutOfOffice(pool: Pool, memberId: string, start: string, end: string): Promise<void> {
  await pool.query('insert into out_of_office (member_id, start_time, end_time, reason) values ($1, $2, $3, $4)', [
    memberId,
    start,
    end,
    'holiday',
  ]);
}

/** A fresh key of org_northwind holding only `scopes`. */
export async function keyWith(
  pool: Pool,
  scopes: string[],
  opts: { type?: 'secret' | 'publishable'; mode?: 'test' | 'live' } = {},
): Promise<string> {
  const created = await createKey(pool, {
    organizationId: 'org_northwind',
    name: `scoped ${scopes.join(' ')}`,
    scopes,
    mode: opts.mode ?? 'test',
    type: opts.type ?? 'secret',
  });
  return created.key;
}
