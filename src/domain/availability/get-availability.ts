import type { Db } from '../../db/pool.ts';
import type { HostSchedule } from '../../db/queries/event-types.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import * as members from '../../db/queries/members.ts';
import { NotFound, ValidationError } from '../errors.ts';
import { answerKey, hostTokens } from './answer-cache.ts';
import { computeSlots } from './engine.ts';
import { eligibleIds, hostInputs, rulesOf } from './find-slots.ts';
import type { CalendarBusyCache } from './calendar-busy-cache.ts';
import type { FreeBusyCache } from './freebusy-cache.ts';
import { DAY_MS, MINUTE_MS, parseWallDate, utcOfWall } from './zone-days.ts';
import { isValidZone } from './zone-offsets.ts';
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

/** Slots ascending; `json[i]` is slot i already serialised as {"start":…,"end":…}. */
interface Answer {
  starts: number[];
  json: string[];
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

/** A calendar date YYYY-MM-DD query parameter as its 00:00 written as UTC (a "wall" value), or a 400 naming the field. */
export function dateParam(value: string, field: string): number {
  const wall = parseWallDate(value);
  if (wall === undefined) throw new ValidationError(`query parameter "${field}" must be a calendar date YYYY-MM-DD, got "${value}"`, field);
  return wall;
}

function parse(q: AvailabilityQuery): { from: number; to: number } {
  const zone = q.timezone ?? 'UTC';
  if (!isValidZone(zone)) throw new ValidationError(`query parameter "timezone" must be an IANA time zone, got "${zone}"`, 'timezone');
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

/** First index whose start is >= t. */
function lowerBound(starts: readonly number[], t: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
  const type = await eventTypes.findVisibleWithHosts(db, auth.organizationId, q.event_type_id);
  if (!type) throw new NotFound(`event type "${q.event_type_id}" not found`);
  const chosen = eligibleIds(type.active_host_ids, q.assigned_to_id, type.scheduling_type);
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
  let answer: Answer = { starts: [], json: [] };
  if (chosen.length > 0) {
    const tokens = await hostTokens(cache, chosen);
    const key = answerKey([auth.mode, type.id, type.updated_at.getTime(), type.schedule_version, from, to, chosen.length], tokens);
    const cached = (await cache.get(chosen[0], key)) as Answer | undefined;
    if (cached) answer = cached;
    else {
      const wanted = new Set(chosen);
      const hosts = (JSON.parse(type.active_hosts) as HostSchedule[]).filter((h) => wanted.has(h.id));
      const inputs = await hostInputs(db, hosts, auth.mode, new Date(from), new Date(to), calendars);
      const rules = { ...rulesOf(type, new Date(from), new Date(to), now), earliest: -Infinity };
      const slots = computeSlots(inputs, rules, type.scheduling_type === 'COLLECTIVE');
      answer = {
        starts: slots.map((s) => s.start),
        json: slots.map((s) => `{"start":"${isoOf(s.start)}","end":"${isoOf(s.end)}"}`),
      };
      await cache.set(chosen[0], key, answer);
    }
  }
  const first = lowerBound(answer.starts, now.getTime() + type.minimum_booking_notice * MINUTE_MS);
  if (answer.body?.first !== first) {
    const text = `{"success":true,"slots":[${answer.json.slice(first).join(',')}],"totalSlots":${answer.starts.length - first}}`;
    answer.body = { first, bytes: Buffer.from(text) };
  }
  return answer.body.bytes;
}
