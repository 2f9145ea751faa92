import type { Db, Tx } from '../pool.ts';
import { exec, one, rows } from '../pool.ts';

export interface HoldMember {
  id: string;
  timezone: string;
  max_bookings_per_day: number;
}

/**
 * Serializes the holds of one member: creates for the same member wait here, so the per-day
 * count taken next cannot be raced. NO KEY UPDATE leaves foreign-key checks on the row free.
 */
export function lockMember(tx: Tx, memberId: string): Promise<HoldMember | undefined> {
  return one<HoldMember>(
    tx,
    'select id, timezone, max_bookings_per_day from members where id = $1 and is_active for no key update',
    [memberId],
  );
}

/** Active holds of the member (in this mode) whose booking starts in [from, to). */
export async function countActiveStarting(tx: Tx, memberId: string, mode: string, from: Date, to: Date): Promise<number> {
  const row = await one<{ n: number }>(
    tx,
    `select count(*) as n from booking_members
      where member_id = $1 and mode = $2 and active and start_time >= $3 and start_time < $4`,
    [memberId, mode, from, to],
  );
  return row?.n ?? 0;
}

export interface NewHold {
  bookingId: string;
  memberId: string;
  mode: string;
  start: Date;
  /** The buffered interval [start - buffer_before, end + buffer_after). */
  blockedFrom: Date;
  blockedTo: Date;
}

/** Fails with SQLSTATE 23P01 when the member already holds an overlapping active booking. */
export async function insertHold(tx: Tx, h: NewHold): Promise<void> {
  await exec(
    tx,
    `insert into booking_members (booking_id, member_id, mode, start_time, during)
     values ($1, $2, $3, $4, tstzrange($5, $6, '[)'))`,
    [h.bookingId, h.memberId, h.mode, h.start, h.blockedFrom, h.blockedTo],
  );
}

/** A booking that ends (cancelled, completed, no-show, rescheduled away) frees its members. */
export async function release(tx: Tx, bookingId: string): Promise<string[]> {
  const released = await rows<{ member_id: string }>(
    tx,
    'update booking_members set active = false where booking_id = $1 and active returning member_id',
    [bookingId],
  );
  return released.map((r) => r.member_id);
}

export async function activeMembersOf(db: Db, bookingId: string): Promise<string[]> {
  const held = await rows<{ member_id: string }>(db, 'select member_id from booking_members where booking_id = $1 and active', [bookingId]);
  return held.map((r) => r.member_id);
}

export interface RoutingStats {
  member_id: string;
  booked: number;
  last_booked_at: Date | null;
}

/**
 * For round-robin: each member's bookings (held, or closed as completed / no-show) starting in
 * [from, to), and when the member was last given a booking.
 */
export function routingStats(db: Db, memberIds: readonly string[], mode: string, from: Date, to: Date): Promise<RoutingStats[]> {
  return rows<RoutingStats>(
    db,
    `select m.id as member_id,
            (select count(*) from booking_members bm join bookings b on b.id = bm.booking_id
              where bm.member_id = m.id and bm.mode = $2 and bm.start_time >= $3 and bm.start_time < $4
                and b.status <> 'CANCELLED') as booked,
            (select max(bm.created_at) from booking_members bm where bm.member_id = m.id and bm.mode = $2) as last_booked_at
       from unnest($1::uuid[]) as m(id)`,
    [memberIds, mode, from, to],
  );
}
