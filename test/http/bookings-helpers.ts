import type { PoolClient } from 'pg';
import { hostsOfType } from '../../src/db/queries/members.ts';
import { slotsForHosts } from '../../src/domain/availability/find-slots.ts';
import * as eventTypes from '../../src/db/queries/event-types.ts';
import type { TestApp, TestResponse } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';

/** A Tuesday; the demo members work Mon–Fri (Jonas Mon–Thu) in European / US zones. */
export const NOW = new Date('2026-12-01T06:00:00Z');
/** The two advisors who host the intro call, in id order. */
export const ADVISORS: string[] = [MEMBERS.amara, MEMBERS.jonas].sort();

/** Slot starts the availability engine lists for a type on [from, to), with their free hosts. */
export async function slots(t: TestApp, eventTypeId: string, from: string, to: string, mode: 'test' | 'live' = 'test') {
  const type = await eventTypes.findVisible(t.db.pool, 'org_northwind', eventTypeId);
  if (!type) throw new Error(`no event type ${eventTypeId}`);
  const q = { organizationId: 'org_northwind', mode, eventType: type, from: new Date(from), to: new Date(to), now: t.clock.now };
  const list = await slotsForHosts(t.db.pool, await hostsOfType(t.db.pool, type), q);
  return list.map((s) => ({ start: new Date(s.start).toISOString(), memberIds: s.memberIds }));
}

export function introBody(requestedTime: string, extra: Record<string, unknown> = {}) {
  return {
    event_type_id: 'et_intro_call',
    requested_time: requestedTime,
    attendee: { name: 'Ada Lovelace', email: 'ada@example.com', timezone: 'Europe/London' },
    custom_fields: { company: 'Analytical Engines' },
    ...extra,
  };
}

export function create(t: TestApp, body: unknown, key: string = KEYS.secret, headers?: Record<string, string>): Promise<TestResponse> {
  return t.request('POST', '/v1/bookings', { key, body, headers });
}

/** Creates a booking and fails loudly unless it got 201. */
export async function created(t: TestApp, body: unknown, key: string = KEYS.secret) {
  const res = await create(t, body, key);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.booking;
}

/** Polls GET /bookings/{id} until the status differs from `from`, for at most timeoutMs. */
export async function waitForStatusChange(t: TestApp, id: string, from: string, key: string = KEYS.secret, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.request('GET', `/v1/bookings/${id}`, { key });
    if (res.body?.booking?.status !== from) return res.body.booking;
    if (Date.now() > deadline) throw new Error(`booking ${id} still ${from} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function activeHolds(t: TestApp, bookingId: string): Promise<string[]> {
  const r = await t.db.pool.query('select member_id from booking_members where booking_id = $1 and active order by member_id', [bookingId]);
  return r.rows.map((x) => x.member_id as string);
}

/** Where seedBooking writes: the pool, or a client inside a transaction a test holds open. */
type Queryable = Pick<PoolClient, 'query'>;

let seq = 0;

/**
 * A booking written straight into the database in any status (with its hold when the status
 * is active), for tests that need a booking in a given state without walking there.
 */
export async function seedBooking(
  t: TestApp,
  o: {
    status: string;
    start: string;
    eventTypeId?: string;
    member?: string;
    mode?: 'test' | 'live';
    minutes?: number;
    externalId?: string;
    db?: Queryable;
  },
): Promise<string> {
  const db = o.db ?? t.db.pool;
  const id = `bkg_seed${String(++seq).padStart(8, '0')}${Math.random().toString(16).slice(2, 10)}`;
  const start = new Date(o.start);
  const end = new Date(start.getTime() + (o.minutes ?? 30) * 60_000);
  const member = o.member ?? '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b01';
  const mode = o.mode ?? 'test';
  const routed = o.status !== 'DRAFT';
  await db.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, custom_fields, external_id,
                           assigned_to_id, host_ids)
     values ($1, 'org_northwind', $2, $3, $4, $5, $6, $7, '{"company":"Seeded"}', $8, $9, $10)`,
    [
      id,
      mode,
      o.eventTypeId ?? 'et_intro_call',
      o.status,
      start,
      end,
      JSON.stringify({ name: 'Seed', email: 'seed@example.com' }),
      o.externalId ?? null,
      routed ? member : null,
      routed ? [member] : [],
    ],
  );
  const active = ['DRAFT', 'SCHEDULED', 'PENDING_CONFIRMATION', 'RESCHEDULED'].includes(o.status);
  await db.query(
    `insert into booking_members (booking_id, member_id, mode, start_time, during, active) values ($1, $2, $3, $4, tstzrange($4, $5), $6)`,
    [id, member, mode, start, end, active],
  );
  return id;
}

export async function eventsOf(t: TestApp, bookingId: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const r = await t.db.pool.query(`select type, payload from booking_events where booking_id = $1 order by created_at, id`, [bookingId]);
  return r.rows.map((x) => ({ type: x.type as string, data: x.payload.data }));
}

/** Each event of a booking with its `timestamp` and the `updated_at` of the booking it carries. */
export async function eventStamps(t: TestApp, bookingId: string): Promise<{ type: string; at: string; updatedAt: string }[]> {
  const r = await t.db.pool.query(
    `select type, payload->>'timestamp' as at, payload->'data'->>'updated_at' as updated_at
       from booking_events where booking_id = $1 order by created_at, id`,
    [bookingId],
  );
  return r.rows.map((x) => ({ type: x.type as string, at: x.at as string, updatedAt: x.updated_at as string }));
}
