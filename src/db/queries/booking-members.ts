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

/**
 * Locks the first of `memberIds`, in their order, that is active and whose lock no other
 * transaction holds, without waiting: one statement in place of one try per candidate.
 */
export function lockFirstUnlocked(tx: Tx, memberIds: readonly string[]): Promise<HoldMember | undefined> {
  return one<HoldMember>(
    tx,
    `select id, timezone, max_bookings_per_day from members
      where id = any($1::uuid[]) and is_active
      order by array_position($1::uuid[], id)
      limit 1
      for no key update skip locked`,
    [memberIds],
  );
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

/**
 * Inserts the hold unless the member already has `cap` active holds (this mode) starting in
 * [dayFrom, dayTo), or an active hold overlapping it: true when inserted. Count and insert are
 * one statement (one round trip); the caller holds the member's row lock, taken by an earlier
 * statement, so this statement's snapshot already sees every hold committed by the lock's
 * previous owner. The overlap is the exclusion constraint's to refuse (ON CONFLICT DO NOTHING
 * arbitrates on it), so no path can double-book a member whatever it checked before.
 */
export async function insertHoldWithinCap(tx: Tx, h: NewHold, dayFrom: Date, dayTo: Date, cap: number): Promise<boolean> {
  const inserted = await exec(
    tx,
    `insert into booking_members (booking_id, member_id, mode, start_time, during)
     select $1, $2, $3, $4, tstzrange($5, $6, '[)')
      where (select count(*) from booking_members
              where member_id = $2 and mode = $3 and active and start_time >= $7 and start_time < $8) < $9
     on conflict do nothing`,
    [h.bookingId, h.memberId, h.mode, h.start, h.blockedFrom, h.blockedTo, dayFrom, dayTo, cap],
  );
  return inserted === 1;
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

export interface RoutingStats {
  member_id: string;
  booked: number;
  last_booked_at: Date | null;
}

/**
 * For round-robin: each member's bookings (held, or closed as completed / no-show) starting in
 * the period of `start` (its UTC calendar month, as the triggers of migration 060 file them),
 * and when the member was last given a booking. The triggers keep the figures in
 * member_booking_counts, so this reads one row per member and month whatever the number of
 * bookings.
 */
export function routingStats(db: Db, memberIds: readonly string[], mode: string, start: Date): Promise<RoutingStats[]> {
  return rows<RoutingStats>(
    db,
    `select m.id as member_id,
            coalesce((select c.booked from member_booking_counts c
                       where c.member_id = m.id and c.mode = $2 and c.period_start = date_trunc('month', $3::timestamptz, 'UTC')), 0) as booked,
            (select max(c.last_booked_at) from member_booking_counts c where c.member_id = m.id and c.mode = $2) as last_booked_at
       from unnest($1::uuid[]) as m(id)`,
    [memberIds, mode, start],
  );
}
