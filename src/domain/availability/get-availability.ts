import type { Db } from '../../db/pool.ts';
import type { AvailabilityType, AvailabilityTypeWithHosts, HostSchedule } from '../../db/queries/event-types.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import * as members from '../../db/queries/members.ts';
import { NotFound, ValidationError } from '../errors.ts';
import { answerKey, hostKeys, hostTokens } from './answer-cache.ts';
import type { SlotRules } from './engine.ts';
import { combinedStarts, hostsSlotStarts } from './engine.ts';
import { eligibleIds, hostInputs, rulesOf } from './find-slots.ts';
import type { CalendarBusyCache } from './calendar-busy-cache.ts';
import type { FreeBusyCache } from './freebusy-cache.ts';
import { FREEBUSY_TTL_SECONDS } from './freebusy-cache.ts';
import { firstIndexFrom } from './intervals.ts';
import { DAY_MS, MINUTE_MS, parseWallDate, utcOfWall } from './zone-days.ts';
import { zoneName } from '../../lib/zones.ts';
import { isMemberId } from '../members/member-id.ts';

/** GET /availability answers at most this many local dates (inclusive); documented in docs/scheduling.md. */
export const MAX_AVAILABILITY_DAYS = 62;

export interface AvailabilityQuery {
  event_type_id: string;
  start_date: string;
  end_date: string;
  timezone?: string;
  assigned_to_id?: string;
}

/**
 * An answer as the cache keeps it: the slots' starts ascending (plain data, so the Redis cache can
 * hold it as JSON). Their length is the event type's duration, which the key pins (its updated_at).
 */
interface Answer {
  starts: readonly number[];
  /** The last body built from this answer and the first slot it lists (the cut moves only as time passes). */
  body?: { first: number; bytes: Buffer };
}

const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
let isoDay = NaN;
let isoDayText = '';

/**
 * `new Date(ms).toISOString()`, several times faster for runs of instants on the same UTC day
 * (an answer's slots): the date part is formatted once per day.
 */
export function isoOf(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  if (day !== isoDay) {
    isoDayText = new Date(day * DAY_MS).toISOString().slice(0, -13); // up to and including the T
    isoDay = day;
  }
  const t = ms - day * DAY_MS;
  const milli = t % 1000;
  const sec = Math.floor(t / 1000);
  const ms3 = milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : String(milli);
  return `${isoDayText}${TWO[Math.floor(sec / 3600)]}:${TWO[Math.floor(sec / 60) % 60]}:${TWO[sec % 60]}.${ms3}Z`;
}

/**
 * Each slot as JSON bytes after a comma, `,{"start":…,"end":…}`, by duration in minutes, then
 * day since the epoch, then minute of that day, remembered: answers computed again after a
 * booking list mostly the same slots, and a body is then these bytes copied end to end
 * (answerBytes). A day is an array over its 1,440 minutes, so a slot is found by index, and a Map
 * is asked once per day of an answer rather than once per slot (a Map lookup per slot was the
 * hottest builtin of the bench's server with every cache off). At most about 20,000 slots over
 * 400 days (some 2.5 MB) are kept, then the memo starts again empty. A start off the minute is
 * written each time, not kept.
 */
const slotMemo = new Map<number, Map<number, (Buffer | undefined)[]>>();
let slotMemoSlots = 0;
let slotMemoDays = 0;
const SLOT_MEMO_MAX = 20_000;
const SLOT_MEMO_DAYS_MAX = 400;
const MINUTES_PER_DAY = 1440;

function slotJson(start: number, minutes: number): Buffer {
  return Buffer.from(`,{"start":"${isoOf(start)}","end":"${isoOf(start + minutes * MINUTE_MS)}"}`, 'latin1');
}

/** The memo's minutes of one day for one duration, made (and the memo emptied first if full) when missing. */
function memoDay(duration: number, day: number): (Buffer | undefined)[] {
  let byDay = slotMemo.get(duration);
  let minutes = byDay?.get(day);
  if (minutes !== undefined) return minutes;
  if (++slotMemoDays > SLOT_MEMO_DAYS_MAX || slotMemoSlots >= SLOT_MEMO_MAX) {
    slotMemo.clear();
    slotMemoDays = 1;
    slotMemoSlots = 0;
    byDay = undefined;
  }
  if (byDay === undefined) slotMemo.set(duration, (byDay = new Map()));
  byDay.set(day, (minutes = new Array<Buffer | undefined>(MINUTES_PER_DAY)));
  return minutes;
}

const BODY_HEAD = Buffer.from('{"success":true,"slots":[');

/**
 * The body listing an answer's slots from index `first` on, copied from each slot's remembered
 * bytes. Joining the slots' JSON strings and encoding the result took 15 % of a CPU profile of
 * the availability bench's server with every cache off (450 slots an answer); copying, the whole
 * of availabilityBody's own code takes 2.7 % (2026-11-28).
 */
export function answerBytes(starts: readonly number[], duration: number, first: number): Buffer {
  const parts = new Array<Buffer>(starts.length - first + 2); // allocated once at its size
  parts[0] = BODY_HEAD;
  let day = NaN;
  let minutes: (Buffer | undefined)[] = [];
  for (let i = first; i < starts.length; i++) {
    const start = starts[i];
    const minute = start / MINUTE_MS;
    let slot: Buffer | undefined;
    if (!Number.isInteger(minute)) slot = slotJson(start, duration);
    else {
      const today = Math.floor(minute / MINUTES_PER_DAY);
      if (today !== day) {
        day = today;
        minutes = memoDay(duration, today);
      }
      const m = minute - today * MINUTES_PER_DAY;
      slot = minutes[m];
      if (slot === undefined) {
        minutes[m] = slot = slotJson(start, duration);
        slotMemoSlots++;
      }
    }
    parts[i - first + 1] = i === first ? slot.subarray(1) : slot; // no comma before the first
  }
  parts[parts.length - 1] = Buffer.from(`],"totalSlots":${starts.length - first}}`);
  return Buffer.concat(parts);
}

/** A calendar date YYYY-MM-DD query parameter as its 00:00 written as UTC (a "wall" value), or a 400 naming the field. */
export function dateParam(value: string, field: string): number {
  const wall = parseWallDate(value);
  if (wall === undefined) throw new ValidationError(`query parameter "${field}" must be a calendar date YYYY-MM-DD, got "${value}"`, field);
  return wall;
}

function parse(q: AvailabilityQuery): { from: number; to: number } {
  const zone = q.timezone ?? 'UTC';
  if (zoneName(zone) === undefined)
    throw new ValidationError(`query parameter "timezone" must be an IANA time zone, got "${zone}"`, 'timezone');
  const first = dateParam(q.start_date, 'start_date');
  const last = dateParam(q.end_date, 'end_date');
  if (last < first) throw new ValidationError('query parameter "end_date" must not be before start_date', 'end_date');
  const days = (last - first) / DAY_MS + 1;
  if (days > MAX_AVAILABILITY_DAYS) {
    throw new ValidationError(
      `query parameter "end_date": the range may span at most ${MAX_AVAILABILITY_DAYS} days, got ${days}`,
      'end_date',
    );
  }
  if (q.assigned_to_id !== undefined && !isMemberId(q.assigned_to_id)) {
    throw new ValidationError(`query parameter "assignedToId" must be a member id (UUID), got "${q.assigned_to_id}"`, 'assignedToId');
  }
  // The local days' starts in `zone` (a midnight lost to DST means the first instant after it).
  return { from: utcOfWall(zone, first), to: utcOfWall(zone, last + DAY_MS) };
}

/** Some hosts' own slot starts, by host id, as one load computes them together. */
type Loaded = Map<string, readonly number[]>;

/**
 * Loads of hosts' starts in progress in this process, by host and key: requests that miss the
 * same host's starts at once (all those in flight just after a booking drops its host) share one
 * load rather than each reading and computing it. A load answers every host it computes, so a
 * host's entry is the whole load, and a request waits once per load whatever the hosts it takes
 * from it (a promise per host was a measurable part of an answer computed with every cache off).
 */
const loading = new Map<string, Promise<Loaded>>();

/**
 * Each event type's hosts' schedules (and their ids, in host order) as last read, with the text
 * they came from (findVisibleWithHosts' `active_hosts`) and the versions they were read at: the
 * type's `updated_at` and its organization's `schedule_version`, which together fix who the hosts
 * are and their hours (findVisibleForAvailability). An answer reads those two and takes the kept
 * hosts while neither moved, and for at most SCHEDULES_TTL_MS, as long as a cached answer lives
 * (a change made in the database by hand, bumping neither, shows within that time). Read again
 * unchanged, the text is compared, not parsed, and the same objects are kept: the engine then
 * writes each host's hours out once as its windows' key (engine.ts, hoursKey), and the same id
 * strings keep their hashes for the maps an answer looks hosts up in. At most
 * SCHEDULES_MAX_CHARS of text is kept, then it starts again empty. The schedules are only read.
 */
interface Schedules {
  text: string;
  version: string;
  readAt: number;
  hosts: readonly HostSchedule[];
  ids: readonly string[];
}
const schedulesByType = new Map<string, Schedules>();
let schedulesChars = 0;
const SCHEDULES_MAX_CHARS = 4_000_000;
const SCHEDULES_TTL_MS = FREEBUSY_TTL_SECONDS * 1000;

const versionOf = (type: AvailabilityType) => `${type.updated_at.getTime()}|${type.schedule_version}`;

function keepSchedules(type: AvailabilityTypeWithHosts, readAt: number): Schedules {
  const version = versionOf(type);
  const kept = schedulesByType.get(type.id);
  if (kept?.text === type.active_hosts) {
    kept.version = version;
    kept.readAt = readAt;
    return kept;
  }
  const hosts = JSON.parse(type.active_hosts) as HostSchedule[];
  const parsed = { text: type.active_hosts, version, readAt, hosts, ids: hosts.map((h) => h.id) };
  if (kept) schedulesChars -= kept.text.length;
  if (schedulesChars + type.active_hosts.length > SCHEDULES_MAX_CHARS) {
    schedulesByType.clear();
    schedulesChars = 0;
  }
  schedulesByType.set(type.id, parsed);
  schedulesChars += type.active_hosts.length;
  return parsed;
}

/** A visible event type of the organization and its hosts' schedules, or undefined. */
async function typeWithSchedules(
  db: Db,
  organizationId: string,
  id: string,
): Promise<{ type: AvailabilityType; schedules: Schedules } | undefined> {
  const type = await eventTypes.findVisibleForAvailability(db, organizationId, id);
  if (!type) return undefined;
  const kept = schedulesByType.get(type.id);
  const readAt = Date.now();
  if (kept && kept.version === versionOf(type) && readAt - kept.readAt < SCHEDULES_TTL_MS) return { type, schedules: kept };
  const withHosts = await eventTypes.findVisibleWithHosts(db, organizationId, id);
  return withHosts && { type: withHosts, schedules: keepSchedules(withHosts, readAt) };
}

/**
 * Each host's own slot starts (hostSlotStarts), from the cache where a host has them under its
 * current token, else computed from the database and kept there. A host's starts depend on that
 * host alone (its hours, cap, holds and calendar blocks) and on the parts of the answer's key but
 * the other hosts, so a booking, which drops its hosts' tokens, leaves the other hosts' starts
 * reusable: the next answer reads and computes only the hosts whose time changed.
 */
async function slotStartsOfHosts(
  db: Db,
  cache: FreeBusyCache,
  calendars: CalendarBusyCache,
  schedules: readonly HostSchedule[],
  chosen: readonly string[],
  tokens: readonly string[],
  parts: readonly (string | number)[],
  rules: SlotRules,
  mode: 'test' | 'live',
): Promise<(readonly number[])[]> {
  const keys = hostKeys(parts, tokens);
  const perHost = (await Promise.all(chosen.map((id, i) => cache.get(id, keys[i])))) as (readonly number[] | undefined)[];
  const missing = new Set<string>();
  const waits = new Map<Promise<Loaded>, number[]>(); // a load, and the hosts (indexes) taken from it
  const wait = (load: Promise<Loaded>, i: number) => {
    const hosts = waits.get(load);
    if (hosts) hosts.push(i);
    else waits.set(load, [i]);
  };
  chosen.forEach((id, i) => {
    if (perHost[i] !== undefined) return;
    const pending = loading.get(`${id}|${keys[i]}`);
    if (pending) wait(pending, i);
    else missing.add(id);
  });
  if (missing.size > 0) {
    const load = (async () => {
      const hosts = schedules.filter((h) => missing.has(h.id));
      const inputs = await hostInputs(db, hosts, mode, new Date(rules.from), new Date(rules.to), calendars);
      const found: Loaded = new Map();
      hostsSlotStarts(inputs, rules).forEach((starts, k) => found.set(hosts[k].id, starts));
      await Promise.all(chosen.map((id, i) => found.has(id) && cache.set(id, keys[i], found.get(id))));
      return found;
    })();
    const names: string[] = [];
    chosen.forEach((id, i) => {
      if (!missing.has(id)) return;
      const name = `${id}|${keys[i]}`;
      loading.set(name, load);
      names.push(name);
      wait(load, i);
    });
    const done = () => {
      for (const name of names) if (loading.get(name) === load) loading.delete(name);
    };
    load.then(done, done);
  }
  for (const [load, hosts] of waits) {
    const found = await load;
    for (const i of hosts) perHost[i] = found.get(chosen[i]) ?? [];
  }
  return perHost as (readonly number[])[];
}

/**
 * GET /availability: the slots of an event type whose starts fall on the local dates
 * start_date..end_date (inclusive) in `timezone` (decisions.md §4), as the JSON body. The
 * same engine as the create's slot check (freeHostsAt); the answer is computed without the notice cut-off and cached (see
 * answer-cache.ts), and `now + minimum_booking_notice` is applied to it on every request. The
 * hosts' calendar blocks come from `calendars` (CalendarBusyCache), their holds from the database.
 */
export async function availabilityBody(
  db: Db,
  cache: FreeBusyCache,
  calendars: CalendarBusyCache,
  auth: { organizationId: string; mode: 'test' | 'live' },
  q: AvailabilityQuery,
  now: Date,
): Promise<Buffer> {
  const { from, to } = parse(q);
  const found = await typeWithSchedules(db, auth.organizationId, q.event_type_id);
  if (!found) throw new NotFound(`event type "${q.event_type_id}" not found`);
  const { type, schedules } = found;
  const { hosts, ids } = schedules;
  const chosen = eligibleIds(ids, q.assigned_to_id, type.scheduling_type);
  if (q.assigned_to_id !== undefined && chosen.length === 0) {
    // decisions.md §3: a filter naming another organization's (or no) member matches nothing.
    if (!(await members.findInOrganization(db, auth.organizationId, q.assigned_to_id.toLowerCase()))) {
      return Buffer.from('{"success":true,"slots":[],"totalSlots":0}');
    }
    throw new ValidationError(
      `query parameter "assignedToId": member "${q.assigned_to_id}" is not a host of this event type`,
      'assignedToId',
    );
  }
  let answer: Answer = { starts: [] };
  if (chosen.length > 0) {
    const tokens = await hostTokens(cache, chosen);
    const parts = [auth.mode, type.id, type.updated_at.getTime(), type.schedule_version, from, to];
    const key = answerKey([...parts, chosen.length], tokens);
    const cached = (await cache.get(chosen[0], key)) as Answer | undefined;
    if (cached) answer = cached;
    else {
      const rules = { ...rulesOf(type, new Date(from), new Date(to), now), earliest: -Infinity };
      const perHost = await slotStartsOfHosts(db, cache, calendars, hosts, chosen, tokens, parts, rules, auth.mode);
      const starts = combinedStarts(perHost, rules, type.scheduling_type === 'COLLECTIVE');
      answer = { starts };
      await cache.set(chosen[0], key, answer);
    }
  }
  const first = firstIndexFrom(answer.starts, now.getTime() + type.minimum_booking_notice * MINUTE_MS);
  if (answer.body?.first !== first) {
    answer.body = { first, bytes: answerBytes(answer.starts, type.duration, first) };
  }
  return answer.body.bytes;
}
