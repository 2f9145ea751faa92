import type { Db } from '../../db/pool.ts';
import { busyOfMembers } from '../../db/queries/busy.ts';
import type { RoutingStats } from '../../db/queries/busy.ts';
import * as members from '../../db/queries/members.ts';
import type { BusyTimes, HostInput } from './engine.ts';
import { computeSlots } from './engine.ts';
import type { CalendarBusyCache } from './calendar-busy-cache.ts';
import { DAY_MS, MINUTE_MS } from './zone-days.ts';
import type { EventTypeRow } from '../../db/schema.ts';
import type { HostSchedule } from '../../db/queries/event-types.ts';

/**
 * Slots of an event type from the database: GET /availability (get-availability.ts, with its
 * answer cache) and freeHostsAt, which booking create and reschedule ask, both feed hostInputs
 * into computeSlots with rulesOf, so create accepts exactly the starts availability lists
 * (test/http/availability.test.ts checks the two against each other).
 */
export interface SlotQuery {
  organizationId: string;
  mode: 'test' | 'live';
  eventType: EventTypeRow;
  /** slot STARTS in [from, to) */
  from: Date;
  to: Date;
  now: Date;
  /** restrict to one host */
  assignedToId?: string;
  /** reschedule: this booking's own holds do not block */
  excludeBookingId?: string;
}

/**
 * The hosts (ids, in host order) a query may use: assignedToId narrows SOLO/ROUND_ROBIN to that
 * host, COLLECTIVE still needs all, and a member who is not a host leaves none.
 */
export function eligibleIds(hostIds: readonly string[], assignedToId: string | undefined, schedulingType: string): readonly string[] {
  if (assignedToId === undefined) return hostIds;
  const wanted = assignedToId.toLowerCase();
  if (!hostIds.includes(wanted)) return [];
  return schedulingType === 'COLLECTIVE' ? hostIds : [wanted];
}

function eligible<H extends HostSchedule>(hosts: readonly H[], q: Pick<SlotQuery, 'assignedToId' | 'eventType'>): H[] {
  const ids = new Set(
    eligibleIds(
      hosts.map((h) => h.id),
      q.assignedToId,
      q.eventType.scheduling_type,
    ),
  );
  return hosts.filter((h) => ids.has(h.id));
}

/** How far before and after the slot starts' range busy time can matter, in ms. */
export interface BusyReach {
  before: number;
  after: number;
}

/**
 * Two days either side: every local day a slot start can fall on (a local day is at most 25 h
 * long), which the daily cap counts in full, and the longest buffered meeting (a 24 h meeting
 * with a 24 h buffer).
 */
const ANY_EVENT_TYPE: BusyReach = { before: 2 * DAY_MS, after: 2 * DAY_MS };

/**
 * The reach for one event type: its local days and its own buffered meeting. For a booking's one
 * slot this reads about half the busy time ANY_EVENT_TYPE would.
 */
export function reachOf(t: Pick<EventTypeRow, 'duration' | 'buffer_before' | 'buffer_after'>): BusyReach {
  const localDay = 26 * 60 * MINUTE_MS;
  return {
    before: Math.max(localDay, t.buffer_before * MINUTE_MS),
    after: Math.max(localDay, (t.duration + t.buffer_after) * MINUTE_MS),
  };
}

/**
 * Loads every host's busy time in one query and shapes it for the engine. `calendars`: a source
 * of the hosts' calendar blocks other than that query (GET /availability's CalendarBusyCache).
 */
export async function hostInputs(
  db: Db,
  hosts: readonly HostSchedule[],
  mode: string,
  from: Date,
  to: Date,
  calendars?: CalendarBusyCache,
): Promise<HostInput[]> {
  return (await loadHosts(db, hosts, mode, from, to, null, ANY_EVENT_TYPE, null, calendars)).inputs;
}

/** hostInputs, and with statsAt the hosts' round-robin figures for that start, from the same statement. */
async function loadHosts(
  db: Db,
  hosts: readonly HostSchedule[],
  mode: string,
  from: Date,
  to: Date,
  excludeBookingId: string | null,
  reach: BusyReach,
  statsAt: Date | null,
  calendars?: CalendarBusyCache,
): Promise<{ inputs: HostInput[]; stats: RoutingStats[] }> {
  const lo = new Date(from.getTime() - reach.before);
  const hi = new Date(to.getTime() + reach.after);
  const ids = hosts.map((h) => h.id);
  const [busyRows, calendarBusy] = await Promise.all([
    busyOfMembers(db, ids, mode, lo, hi, excludeBookingId, statsAt, calendars === undefined),
    calendars?.overlapping(db, ids, lo.getTime(), hi.getTime()),
  ]);
  // the rows' arrays go to the engine as they are (one part per source), never copied
  const byMember = new Map<string, { busy: BusyTimes[]; bookingStarts: ArrayLike<number> }>();
  for (const h of hosts) {
    const blocks = calendarBusy?.get(h.id);
    byMember.set(h.id, { busy: blocks ? [blocks] : [], bookingStarts: [] });
  }
  const stats: RoutingStats[] = [];
  for (const r of busyRows) {
    if (r.kind === 'stats') {
      stats.push({ member_id: r.member_id, booked: r.booked!, last_booked_at: r.last_booked_at });
      continue;
    }
    const entry = byMember.get(r.member_id);
    if (!entry) continue;
    entry.busy.push({ starts: r.starts, ends: r.ends });
    // one booking row per member (busyOfMembers groups by member)
    if (r.kind === 'booking') entry.bookingStarts = r.booking_starts;
  }
  const inputs = hosts.map((h) => ({
    id: h.id,
    timezone: h.timezone,
    workingHours: h.working_hours,
    maxBookingsPerDay: h.max_bookings_per_day,
    busy: byMember.get(h.id)!.busy,
    bookingStarts: byMember.get(h.id)!.bookingStarts,
  }));
  return { inputs, stats };
}

/** Engine rules of an event type for slot starts in [from, to), seen at `now`. */
export function rulesOf(
  t: Pick<EventTypeRow, 'duration' | 'slot_interval' | 'buffer_before' | 'buffer_after' | 'minimum_booking_notice'>,
  from: Date,
  to: Date,
  now: Date,
) {
  return {
    duration: t.duration,
    slotInterval: t.slot_interval,
    bufferBefore: t.buffer_before,
    bufferAfter: t.buffer_after,
    from: from.getTime(),
    to: to.getTime(),
    earliest: now.getTime() + t.minimum_booking_notice * MINUTE_MS,
  };
}

/** Slots for already-loaded hosts (tests list a day's slots with it, as GET /availability would). */
export async function slotsForHosts(db: Db, hosts: readonly HostSchedule[], q: SlotQuery) {
  return (await slotsAndStats(db, hosts, q, null)).slots;
}

async function slotsAndStats(db: Db, hosts: readonly HostSchedule[], q: SlotQuery, statsAt: Date | null) {
  const chosen = eligible(hosts, q);
  if (chosen.length === 0 || q.to <= q.from) return { slots: [], stats: [] };
  const { inputs, stats } = await loadHosts(db, chosen, q.mode, q.from, q.to, q.excludeBookingId ?? null, reachOf(q.eventType), statsAt);
  return { slots: computeSlots(inputs, rulesOf(q.eventType, q.from, q.to, q.now), q.eventType.scheduling_type === 'COLLECTIVE'), stats };
}

/**
 * Is `start` a slot GET /availability would list (grid, working hours, notice, buffers, OOO,
 * daily cap, bookings), and who is free then: booking create and reschedule ask it. With
 * assignedToId, `listed` means listed for that host; a non-host gives listed false and no
 * members. The event type's hosts (in host order) come back too, since bookings need them (is
 * assign_to a host, host order) and loading them once saves a round trip; so do, for
 * ROUND_ROBIN, the hosts' routing figures, read with their busy time. `hosts`: the type's
 * hosts in host order, when the caller has just read them (findBookable).
 */
export async function freeHostsAt(
  db: Db,
  q: Omit<SlotQuery, 'from' | 'to'> & { start: Date; hosts?: readonly HostSchedule[] },
): Promise<{ hosts: readonly HostSchedule[]; listed: boolean; memberIds: string[]; stats: RoutingStats[] }> {
  const hosts = q.hosts ?? (await members.hostsOfType(db, q.eventType));
  const statsAt = q.eventType.scheduling_type === 'ROUND_ROBIN' ? q.start : null;
  const { slots, stats } = await slotsAndStats(db, hosts, { ...q, from: q.start, to: new Date(q.start.getTime() + 1) }, statsAt);
  const hit = slots.find((s) => s.start === q.start.getTime());
  return { hosts, listed: hit !== undefined, memberIds: hit ? hit.memberIds : [], stats };
}
