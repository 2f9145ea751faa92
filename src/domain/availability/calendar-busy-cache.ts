import type { Db } from '../../db/pool.ts';
import { calendarBusyOfMembers } from '../../db/queries/busy.ts';
import type { BusyTimes } from './engine.ts';
import { firstIndexFrom } from './intervals.ts';

/** How long a member's blocks are kept without a word from the listener (a missed NOTIFY's bound). */
export const CALENDAR_BUSY_TTL_MS = 60_000;
/** More members than this and the cache starts again from empty (a bound on its memory). */
const MAX_MEMBERS = 20_000;

interface Entry {
  until: number;
  /** the member's blocks as the last sync stored them, by start (ends in step) */
  starts: Float64Array;
  ends: Float64Array;
  /** the latest end of the blocks up to each one (never decreasing), to find the first that reaches a window */
  reach: Float64Array;
}

/**
 * The busy blocks of members' connected calendars, kept in this process for GET /availability.
 * They change only when a sync stores new ones (every CALENDAR_SYNC_INTERVAL at most), while
 * bookings change all the time and drop the availability answers built on them; so an answer
 * computed again after a booking reads the bookings from the database and the calendars from
 * here. Each member's entry is everything its calendars hold (a sync keeps only its window), and
 * a request takes the part it needs.
 *
 * Kept correct the way the answer cache is (docs/calendars.md, "Where busy time shows"): a sync
 * that changes a member's blocks announces it at commit (announceBusyChange), and every process
 * drops that member here at once; an entry also lives at most CALENDAR_BUSY_TTL_MS, and the
 * whole cache is dropped each time the listener (re)connects, since announcements made while it
 * was away are lost. A load that an invalidation overtakes is used for its own request only,
 * never kept. Booking create and reschedule do not use it: their check reads the calendars'
 * blocks from the database, in the statement that reads the holds (find-slots.ts), so the
 * ordering guarantee of docs/calendars.md does not depend on a notification's delivery.
 */
export class CalendarBusyCache {
  private entries = new Map<string, Entry>();
  /** bumped by every invalidation: a load started before one must not be kept */
  private generation = 0;
  private now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /**
   * Each member's blocks that overlap [from, to), sorted by start, as views of the entry (no
   * copy); loads the members not held in one query. Blocks may nest, so the views can also hold
   * a block that ends before `from` inside the run of those that reach it: a window is the busy
   * time a range's slots can meet, so such a block meets none of them.
   */
  async overlapping(db: Db, memberIds: readonly string[], from: number, to: number): Promise<Map<string, BusyTimes>> {
    const t = this.now();
    const found = new Map<string, Entry>();
    const missing: string[] = [];
    for (const id of memberIds) {
      const entry = this.entries.get(id);
      if (entry && entry.until > t) found.set(id, entry);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const generation = this.generation;
      const rows = await calendarBusyOfMembers(db, missing);
      const loaded = new Map<string, Entry>(
        missing.map((id) => [id, { until: t + CALENDAR_BUSY_TTL_MS, starts: EMPTY, ends: EMPTY, reach: EMPTY }]),
      );
      for (const r of rows) loaded.set(r.member_id, { until: t + CALENDAR_BUSY_TTL_MS, ...sortedBlocks(r.starts, r.ends) });
      const keep = generation === this.generation;
      if (keep && this.entries.size + loaded.size > MAX_MEMBERS) this.entries.clear();
      for (const [id, entry] of loaded) {
        found.set(id, entry);
        if (keep) this.entries.set(id, entry);
      }
    }
    const out = new Map<string, BusyTimes>();
    for (const [id, entry] of found) out.set(id, within(entry, from, to));
    return out;
  }

  /** These members' blocks changed (a sync committed): drop them. */
  invalidate(memberIds: readonly string[]): void {
    this.generation++;
    for (const id of memberIds) this.entries.delete(id);
  }

  /** Announcements may have been missed (the listener reconnected): drop everything. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

const EMPTY = new Float64Array(0);

function sortedBlocks(starts: number[], ends: number[]): Pick<Entry, 'starts' | 'ends' | 'reach'> {
  const order = starts.map((_, i) => i).sort((a, b) => starts[a] - starts[b]);
  const sorted = { starts: Float64Array.from(order, (i) => starts[i]), ends: Float64Array.from(order, (i) => ends[i]) };
  const reach = new Float64Array(sorted.ends.length);
  for (let i = 0, latest = -Infinity; i < reach.length; i++) reach[i] = latest = Math.max(latest, sorted.ends[i]);
  return { ...sorted, reach };
}

/**
 * The run of blocks from the first that ends after `from` (by the latest end so far) to the last
 * that starts before `to`: two binary searches and two views. The blocks were copied one by one
 * before, into arrays grown push by push, for every host of every answer computed.
 */
function within(entry: Entry, from: number, to: number): BusyTimes {
  const first = firstIndexFrom(entry.reach, from, true);
  const end = firstIndexFrom(entry.starts, to);
  return first >= end
    ? { starts: EMPTY, ends: EMPTY }
    : { starts: entry.starts.subarray(first, end), ends: entry.ends.subarray(first, end) };
}
