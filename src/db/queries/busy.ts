import type { Db } from '../pool.ts';
import { rows } from '../pool.ts';
import type { MemberBookingCountRow } from '../schema.ts';

/**
 * What blocks members' time, for many members in one round trip: active booking holds of one
 * mode (their `during` is already widened by the booked type's buffers), out-of-office blocks,
 * and the busy blocks of their connected calendars as the last successful sync stored them
 * (calendars are shared configuration: they block test and live bookings alike). Instants travel as comma-separated epoch milliseconds, which parse far faster than
 * thousands of timestamptz rows.
 */
export interface BusyRow {
  member_id: string;
  kind: 'booking' | 'ooo' | 'calendar' | 'stats';
  /** booking, ooo, calendar: the intervals' starts and ends */
  starts: string | null;
  ends: string | null;
  /** bookings only: the booking start times, for the daily cap */
  booking_starts: string | null;
  /** stats only (statsAt given): round-robin's figures of the member (RoutingStats) */
  booked: number | null;
  last_booked_at: Date | null;
}

/**
 * For round-robin: the member's bookings (held, or closed as completed / no-show) starting in
 * the period of a start (its UTC calendar month, as the triggers of
 * src/db/functions/member_booking_counts_*.sql file them in member_booking_counts, one row per
 * member and month), and when the member was last given a booking. busyOfMembers reads them
 * with the slot's busy time, in the same statement.
 */
export type RoutingStats = Pick<MemberBookingCountRow, 'member_id' | 'booked'> & { last_booked_at: Date | null };

// No ORDER BY inside the aggregates: the engine sorts what it needs, and aggregates of one
// group consume the same rows in the same order, so starts[i] and ends[i] stay a pair.
// date_part (double precision) is much cheaper than extract (numeric).
const WEEK_MS = 7 * 86_400_000;
const MS = (col: string) => `string_agg(((date_part('epoch', ${col}) * 1000)::bigint)::text, ',')`;

/**
 * statsAt (a booking's start): also one 'stats' row per member, round-robin's figures for that
 * start, so a create reads its slot and its routing order in one round trip.
 */
export function busyOfMembers(
  db: Db,
  memberIds: readonly string[],
  mode: string,
  from: Date,
  to: Date,
  excludeBookingId: string | null,
  statsAt: Date | null = null,
): Promise<BusyRow[]> {
  // start_time bounds let the (member_id, mode, start_time) index do the work; held bookings
  // are at most a few days long (duration and buffers are capped), so a week either side is safe.
  // The overlap is written with lower/upper, not `during && tstzrange($3, $4)` (the same test for
  // the non-empty [) intervals holds have and a window with from < to): with `&&` the planner
  // took the exclusion constraint's GiST index (member, mode, during), whose uuid keys overlap
  // across pages, and read 650 buffers for 20 hosts at 1 M bookings against 110 through the btree.
  // The week bounds come as parameters: `$3 - interval '7 days'` is stable, not immutable, so it
  // was computed again for every row scanned.
  return rows<BusyRow>(
    db,
    `select member_id, 'booking' as kind, ${MS('lower(during)')} as starts, ${MS('upper(during)')} as ends,
            ${MS('start_time')} as booking_starts, null::int as booked, null::timestamptz as last_booked_at
       from booking_members
      where member_id = any($1::uuid[]) and mode = $2 and active
        and start_time > $7 and start_time < $8
        and lower(during) < $4 and upper(during) > $3 and ($5::text is null or booking_id <> $5)
      group by member_id
     union all
     select member_id, 'ooo', ${MS('start_time')}, ${MS('end_time')}, null, null, null
       from out_of_office
      where member_id = any($1::uuid[]) and start_time < $4 and end_time > $3
      group by member_id
     union all
     select member_id, 'calendar', ${MS('start_time')}, ${MS('end_time')}, null, null, null
       from calendar_busy
      where member_id = any($1::uuid[]) and start_time < $4 and end_time > $3
      group by member_id
     union all
     select m.id, 'stats', null, null, null,
            coalesce((select c.booked from member_booking_counts c
                       where c.member_id = m.id and c.mode = $2 and c.period_start = date_trunc('month', $6::timestamptz, 'UTC')), 0),
            (select max(c.last_booked_at) from member_booking_counts c where c.member_id = m.id and c.mode = $2)
       from unnest($1::uuid[]) as m(id)
      where $6::timestamptz is not null`,
    [memberIds, mode, from, to, excludeBookingId, statsAt, new Date(from.getTime() - WEEK_MS), new Date(to.getTime() + WEEK_MS)],
  );
}
