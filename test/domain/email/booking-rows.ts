import { randomBytes } from 'node:crypto';
import type { Pool } from '../../../src/db/pool.ts';
import { transaction } from '../../../src/db/pool.ts';
import type { BookingEmailKind } from '../../../src/domain/email/enqueue.ts';
import { enqueueBookingEmail } from '../../../src/domain/email/enqueue.ts';

export interface BookingRowInput {
  id?: string;
  organizationId?: string;
  mode?: 'test' | 'live';
  eventTypeId?: string;
  status?: string;
  start: string;
  minutes?: number;
  attendee?: { name: string; email: string; timezone?: string | null };
  assignedToId?: string | null;
  hostIds?: string[];
  rescheduledFrom?: string | null;
  cancellationReason?: string | null;
}

/** Inserts a bookings row directly (the tests of emails do not depend on the booking endpoints). */
export async function insertBooking(pool: Pool, b: BookingRowInput): Promise<string> {
  const id = b.id ?? `bkg_${randomBytes(8).toString('hex')}`;
  const start = new Date(b.start);
  const end = new Date(start.getTime() + (b.minutes ?? 30) * 60_000);
  await pool.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee,
       assigned_to_id, host_ids, rescheduled_from, cancellation_reason)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      b.organizationId ?? 'org_northwind',
      b.mode ?? 'test',
      b.eventTypeId ?? 'et_intro_call',
      b.status ?? 'SCHEDULED',
      start,
      end,
      b.attendee ?? { name: 'Ada Lovelace', email: `ada.${id}@example.com`, timezone: 'Europe/London' },
      b.assignedToId ?? null,
      b.hostIds ?? (b.assignedToId ? [b.assignedToId] : []),
      b.rescheduledFrom ?? null,
      b.cancellationReason ?? null,
    ],
  );
  if (b.rescheduledFrom) {
    await pool.query(`update bookings set status = 'CANCELLED', rescheduled_to = $1 where id = $2`, [id, b.rescheduledFrom]);
  }
  return id;
}

export function enqueue(
  pool: Pool,
  bookingId: string,
  kind: BookingEmailKind,
  previousEmail?: string,
  attendeeInvited?: boolean,
): Promise<void> {
  return transaction(pool, (tx) => enqueueBookingEmail(tx, { bookingId, kind, previousEmail, attendeeInvited }));
}
