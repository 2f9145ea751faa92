import type { Db } from '../pool.ts';
import { rows } from '../pool.ts';
import type { MemberBookingCountRow } from '../schema.ts';

/**
 * What blocks members' time, for many members in one round trip: active booking holds of one
 * mode (their `during` is already widened by the booked type's buffers), out-of-office blocks,
 * and the busy blocks of their connected calendars as the last successful sync stored them
 * (calendars are shared configuration: they block test and live bookings alike). Instants are
 * epoch milliseconds.
 */
export interface BusyRow {
  member_id: string;
  kind: 'booking' | 'ooo' | 'calendar' | 'stats';
  /**
   * booking, ooo, calendar: the intervals' starts and ends, in step (empty for stats); bookings
   * read from member_busy_days (every read but a reschedule's) sorted by start (decodeHolds),
   * the rest in no set order
   */
  starts: ArrayLike<number>;
  ends: ArrayLike<number>;
  /** bookings only: the booking start times, for the daily cap (empty for the other kinds) */
  booking_starts: ArrayLike<number>;
  /** stats only (statsAt given): round-robin's figures of the member (RoutingStats) */
  booked: number | null;
  last_booked_at: Date | null;
}

/**
 * A BusyRow as it travels. Thousands of timestamptz rows parse slowly, so each member's intervals
 * come as comma-separated integers, and small ones: a start as milliseconds after the window's
 * start (the statement's `base`), an end as the interval's length, a booking's start as
 * milliseconds after its hold's start (its buffer before). Absolute epoch milliseconds were
 * twice the bytes: for the availability bench's 20 hosts over 14 days (2,000 holds) the read
 * and its parse took 0.97 against 1.29 ms of the service's CPU (medians of four interleaved
 * pairs of 1,500 reads), hostInputs 0.72–1.05 against 1.10–1.42 ms, with no more PostgreSQL
 * time (2026-11-28, a slow 2 vCPU AMD machine).
 */
interface WireRow {
  member_id: string;
  kind: BusyRow['kind'];
  starts: string | null;
  ends: string | null;
  booking_starts: string | null;
  booked: number | null;
  last_booked_at: Date | null;
  /**
   * bookings over a range of days: the member's member_busy_days records instead of the three
   * lists, in base64. A bytea travels as hex text, twice its bytes: base64 is a third smaller, and
   * Node decodes it faster. In-process, eight interleaved rounds of 1,500 answers of the
   * availability bench with every cache off: 784 against 742 µs of service CPU per answer
   * (medians), PostgreSQL's unchanged (420 and 413 µs).
   */
  packed: string | null;
}

/**
 * Comma-separated integers as numbers, read digit by digit: about twice as fast as split and
 * Number, and a request reads thousands.
 */
function numbers(csv: string | null): number[] {
  if (!csv) return [];
  const out: number[] = [];
  let value = 0;
  let negative = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv.charCodeAt(i);
    if (c === 44) {
      out.push(negative ? -value : value);
      value = 0;
      negative = false;
    } else if (c === 45) negative = true;
    else value = value * 10 + (c - 48);
  }
  out.push(negative ? -value : value);
  return out;
}

const NONE: readonly number[] = Object.freeze([]);

/**
 * Hold records as member_busy_days packs them (src/db/functions/hold_busy_record.sql, 16 bytes
 * each), the holds among them that overlap [from, to), sorted by start: the engine then joins a
 * member's holds in one pass, with no sort (engine.ts, mergedBusy). Exported for its test.
 *
 * The rows come in day order as the index gives them, and a day's records in the order its holds
 * were made, so each record is moved into place as it is read and moves back past few others, if
 * any. Past a budget of moves (rows in another order, which no statement promises against) the
 * rest is sorted at the end instead.
 *
 * The three lists are views of `into` from `at` on (3 numbers a record of `b`): one typed array
 * for them, outside the JavaScript heap, since a JavaScript array per list was the largest thing
 * an answer computed with every cache off allocated (52 of 313 KB per answer); and busyOfMembers
 * hands every member's records one array, since a typed array each cost more than their decoding
 * (20 of 300 numbers: 24 against 5 µs for one of 6,000 and 20 views, 2026-11-28).
 */
export function decodeHolds(
  b: Buffer,
  from: number,
  to: number,
  into = new Float64Array((b.byteLength >>> 4) * 3),
  at = 0,
): { starts: Float64Array; ends: Float64Array; bookingStarts: Float64Array } {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const count = b.byteLength >>> 4;
  const all = into.subarray(at, at + count * 3);
  let kept = 0;
  let moves = 0;
  const budget = 8 * count + 64;
  for (let byte = 0; byte < count * 16; byte += 16) {
    // int8 as two halves: the number stays exact below 2^53, and no BigInt is made per hold
    const start = view.getInt32(byte) * 4_294_967_296 + view.getUint32(byte + 4);
    const end = start + view.getInt32(byte + 8);
    if (start >= to || end <= from) continue;
    let i = kept++;
    if (moves <= budget) {
      for (; i > 0 && all[i - 1] > start; i--) {
        all[i] = all[i - 1];
        all[count + i] = all[count + i - 1];
        all[2 * count + i] = all[2 * count + i - 1];
      }
      moves += kept - 1 - i;
    }
    all[i] = start;
    all[count + i] = end;
    all[2 * count + i] = start + view.getInt32(byte + 12);
  }
  const starts = all.subarray(0, kept);
  const ends = all.subarray(count, count + kept);
  const bookingStarts = all.subarray(2 * count, 2 * count + kept);
  if (moves > budget) {
    const order = Array.from(starts, (_, i) => i).sort((x, y) => starts[x] - starts[y]);
    const [s, e, bs] = [
      Float64Array.from(order, (i) => starts[i]),
      Float64Array.from(order, (i) => ends[i]),
      Float64Array.from(order, (i) => bookingStarts[i]),
    ];
    return { starts: s, ends: e, bookingStarts: bs };
  }
  return { starts, ends, bookingStarts };
}

/**
 * The rows' packed hold records (WireRow.packed) decoded, each member's lists views of one typed
 * array; undefined for the rows without.
 */
function unpackedRows(found: readonly WireRow[], from: number, to: number): (BusyRow | undefined)[] {
  const bytes = found.map((r) => (r.packed === null ? undefined : Buffer.from(r.packed, 'base64')));
  let records = 0;
  for (const b of bytes) if (b) records += b.byteLength >>> 4;
  const all = new Float64Array(records * 3);
  let at = 0;
  return found.map((r, k) => {
    const b = bytes[k];
    if (!b) return undefined;
    const { starts, ends, bookingStarts } = decodeHolds(b, from, to, all, at);
    at += (b.byteLength >>> 4) * 3;
    return { member_id: r.member_id, kind: 'booking', starts, ends, booking_starts: bookingStarts, booked: null, last_booked_at: null };
  });
}

function decoded(r: WireRow, base: number): BusyRow {
  if (r.kind === 'stats') return { ...r, starts: NONE, ends: NONE, booking_starts: NONE };
  const starts = numbers(r.starts);
  const ends = numbers(r.ends);
  for (let i = 0; i < starts.length; i++) {
    starts[i] += base;
    ends[i] += starts[i];
  }
  const booking_starts = r.kind === 'booking' ? numbers(r.booking_starts) : [];
  for (let i = 0; i < booking_starts.length; i++) booking_starts[i] += starts[i];
  return { member_id: r.member_id, kind: r.kind, starts, ends, booking_starts, booked: r.booked, last_booked_at: r.last_booked_at };
}

/**
 * The UTC day of an instant as a date literal, no earlier than 0001-01-01: a client may name the
 * first days of year 1 (src/lib/dates.ts), and the days read around them would otherwise fall in
 * year 0, which PostgreSQL refuses ("0000-12-30"). No hold is older than year 1.
 */
const FIRST_DAY_MS = Date.parse('0001-01-01T00:00:00Z');
const utcDay = (ms: number) => new Date(Math.max(ms, FIRST_DAY_MS)).toISOString().slice(0, 10);

/**
 * For round-robin: the member's bookings (held, or closed as completed / no-show) starting in
 * the period of a start (its UTC calendar month, as the triggers of
 * src/db/functions/member_booking_counts_*.sql file them in member_booking_counts, one row per
 * member and month), and when the member was last given a booking (member_last_booked, one row
 * per member and mode, kept by the same trigger). busyOfMembers reads them with the slot's busy
 * time, in the same statement.
 */
export type RoutingStats = Pick<MemberBookingCountRow, 'member_id' | 'booked'> & { last_booked_at: Date | null };

// No ORDER BY inside these aggregates: the engine sorts what comes unsorted, and aggregates of
// one group consume the same rows in the same order, so starts[i] and ends[i] stay a pair. (The
// member_busy_days records come out sorted by start: decodeHolds.)
// date_part (double precision) is much cheaper than extract (numeric).
const EPOCH_MS = (col: string) => `(date_part('epoch', ${col}) * 1000)::bigint`;
/** WireRow's starts and ends of [start, end) columns, the base being parameter `base`. */
const AFTER = (ms: string, base: string) => `string_agg((${ms} - ${base})::text, ',')`;
const LENGTH = (startMs: string, endMs: string) => `string_agg((${endMs} - ${startMs})::text, ',')`;

/** How far a hold reaches before and after its start (constraint booking_members_during_near_start). */
const HOLD_BEFORE_MS = 24 * 3_600_000;
const HOLD_AFTER_MS = 48 * 3_600_000;

/**
 * Which holds overlap [from, to), for a read that leaves one booking out (a reschedule's slot,
 * without the booking being moved), which member_busy_days cannot. It asks the exclusion
 * constraint's GiST index (member, mode, during) with `during &&`: 0.31–0.35 ms (pgbench, the
 * creates bench's 4,300 holds, 20 hosts). Through the (member_id, mode, start_time) btree it was
 * 0.38–0.45 ms, since the btree's start_time range must add a hold's whole reach (72 h) to a
 * window of about 52 h. The start_time bounds (a hold overlapping [from, to) starts in
 * (from - 48 h, to + 24 h), constraint booking_members_during_near_start) come as parameters:
 * `from - interval '48 hours'` is stable, not immutable, so it was computed again for every row
 * scanned.
 *
 * The GiST index cannot take `member_id = any(…)`, so it walks every member's holds in the
 * window's days, not only the hosts': 405 buffers for a create's slot at 1 M bookings, 650 for
 * 20 hosts over 14 days (against 110 through the btree). Every other read takes
 * member_busy_days (busyOfMembers).
 */
function holdsOverlapping(p: Params, mode: string, from: Date, to: Date): string {
  const bounds = `start_time > ${p.add(new Date(from.getTime() - HOLD_AFTER_MS))} and start_time < ${p.add(new Date(to.getTime() + HOLD_BEFORE_MS))}`;
  return `mode = ${p.add(mode)} and active and during && tstzrange(${p.add(from)}, ${p.add(to)}) and ${bounds}`;
}

/** A statement's parameters, numbered as they are added. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The bookings' holds as member_busy_days keeps them (migration 082), a row per member and day
 * already packed, rather than the holds themselves, for every read that leaves no booking out:
 * availability and free/busy ranges, and a create's slot. For the availability bench's 2,000
 * holds (20 hosts, 14 days) that statement part took 0.23 against 1.15 ms (pgbench, one client,
 * 2026-11-28). A create's slot read asked the holds through the GiST index until the same
 * evening: the days' records, with their few index pages per member, made four interleaved
 * pairs of the creates bench do 231–263 against 210–237 creates/s, at 4.01–4.56 against
 * 4.57–4.99 ms of PostgreSQL CPU and 2.30–2.63 against 2.51–2.88 ms of the service's per create
 * (a slow phase of the Intel machine). A read that leaves a booking out (a reschedule's) reads
 * the holds (holdsOverlapping).
 *
 * statsAt (a booking's start): also one 'stats' row per member, round-robin's figures for that
 * start, so a create reads its slot and its routing order in one round trip. withCalendars false:
 * no 'calendar' rows (GET /availability takes them from CalendarBusyCache).
 *
 * Each combination is a statement text of its own, holding only the parts it reads. One text
 * with the parts switched off by parameters (`$9::boolean and …`) was planned again at every
 * execution: a plan for the parameters' values drops the parts switched off, so it always looked
 * cheaper than the plan for any values, and PostgreSQL kept planning anew, 0.35 ms of the 1.47 ms
 * of PostgreSQL CPU of an uncached GET /availability (pg_stat_statements, the availability
 * bench). With nothing to drop, GET /availability's read (then of the holds themselves) settled
 * on one plan after five executions: at 1 M bookings 1.28 against 1.47 ms (pgbench)
 * (docs/scaling.md, "Planning is part of the busy reads' cost").
 */
const statementTexts = new Map<string, string>();

export async function busyOfMembers(
  db: Db,
  memberIds: readonly string[],
  mode: string,
  from: Date,
  to: Date,
  excludeBookingId: string | null,
  statsAt: Date | null = null,
  withCalendars = true,
): Promise<BusyRow[]> {
  const p = new Params();
  const ids = p.add(memberIds);
  const baseMs = from.getTime(); // WireRow's base
  const base = p.add(baseMs);
  const parts: string[] = [];
  if (excludeBookingId === null) {
    // A hold overlapping [from, to) starts in (from - 48 h, to + 24 h): the UTC days of those
    // bounds, and unpacked drops what does not overlap.
    parts.push(
      `select member_id, 'booking' as kind, null::text as starts, null::text as ends, null::text as booking_starts,
              null::int as booked, null::timestamptz as last_booked_at, encode(string_agg(holds, ''::bytea), 'base64') as packed
         from member_busy_days
        where member_id = any(${ids}::uuid[]) and mode = ${p.add(mode)}
          and day >= ${p.add(utcDay(baseMs - HOLD_AFTER_MS))}::date and day <= ${p.add(utcDay(to.getTime() + HOLD_BEFORE_MS))}::date
        group by member_id`,
    );
  } else {
    parts.push(
      `select member_id, 'booking' as kind, ${AFTER('during_start_ms', base)} as starts, ${LENGTH('during_start_ms', 'during_end_ms')} as ends,
              ${LENGTH('during_start_ms', 'start_ms')} as booking_starts, null::int as booked, null::timestamptz as last_booked_at,
              null::text as packed
         from booking_members
        where member_id = any(${ids}::uuid[]) and ${holdsOverlapping(p, mode, from, to)} and booking_id <> ${p.add(excludeBookingId)}
        group by member_id`,
    );
  }
  const [lo, hi] = [p.add(from), p.add(to)];
  const blocks = (table: string, kind: string) =>
    `select member_id, '${kind}', ${AFTER(EPOCH_MS('start_time'), base)}, ${LENGTH(EPOCH_MS('start_time'), EPOCH_MS('end_time'))}, null, null, null, null
       from ${table}
      where member_id = any(${ids}::uuid[]) and start_time < ${hi} and end_time > ${lo}
      group by member_id`;
  parts.push(blocks('out_of_office', 'ooo'));
  if (withCalendars) parts.push(blocks('calendar_busy', 'calendar'));
  if (statsAt !== null) {
    const m = p.add(mode);
    parts.push(
      `select m.id, 'stats', null, null, null,
              coalesce((select c.booked from member_booking_counts c
                         where c.member_id = m.id and c.mode = ${m} and c.period_start = date_trunc('month', ${p.add(statsAt)}::timestamptz, 'UTC')), 0),
              (select l.last_booked_at from member_last_booked l where l.member_id = m.id and l.mode = ${m}), null
         from unnest(${ids}::uuid[]) as m(id)`,
    );
  }
  // The text depends on the combination alone (the parameters are numbered in the same order):
  // kept, the same string comes back every time, and its hash with it, where joining 1.5 KB anew
  // and hashing it to find the prepared statement's name came at every read.
  const shape = `${excludeBookingId === null}|${withCalendars}|${statsAt === null}`;
  let text = statementTexts.get(shape);
  if (text === undefined) statementTexts.set(shape, (text = parts.join(' union all ')));
  const out: BusyRow[] = [];
  const found = await rows<WireRow>(db, text, p.values);
  const unpacked = unpackedRows(found, baseMs, to.getTime());
  for (let k = 0; k < found.length; k++) {
    const row = unpacked[k] ?? decoded(found[k], baseMs);
    // a member whose days read hold nothing in the window has no row, as from the holds' statement
    if (row.kind !== 'booking' || row.starts.length > 0) out.push(row);
  }
  return out;
}

/** Every busy block the members' calendars hold (a sync keeps only its window), for CalendarBusyCache: epoch milliseconds, in no order. */
export async function calendarBusyOfMembers(
  db: Db,
  memberIds: readonly string[],
): Promise<{ member_id: string; starts: number[]; ends: number[] }[]> {
  const found = await rows<Pick<WireRow, 'member_id' | 'starts' | 'ends'>>(
    db,
    `select member_id, string_agg(${EPOCH_MS('start_time')}::text, ',') as starts, string_agg(${EPOCH_MS('end_time')}::text, ',') as ends
       from calendar_busy where member_id = any($1::uuid[]) group by member_id`,
    [memberIds],
  );
  return found.map((r) => ({ member_id: r.member_id, starts: numbers(r.starts), ends: numbers(r.ends) }));
}
