import type { Db } from '../../db/pool.ts';
import { busyOfMembers } from '../../db/queries/busy.ts';
import * as members from '../../db/queries/members.ts';
import { DATE_TIME_RULE, parseDateTime } from '../../lib/dates.ts';
import { NotFound, ValidationError } from '../errors.ts';
import { hostTokens } from './answer-cache.ts';
import type { FreeBusyCache } from './freebusy-cache.ts';
import { freeBusySlots } from './freebusy.ts';
import type { Interval } from './intervals.ts';
import { mergeIntervals } from './intervals.ts';
import { workingWindows } from './working-windows.ts';
import { MINUTE_MS, zoneDays } from './zone-days.ts';
import { isMemberId } from '../members/member-id.ts';

export const MAX_FREEBUSY_DAYS = 30;

export interface FreeBusyQuery {
  start: string;
  end: string;
  time_slot: number;
}

export interface FreeBusyCaller {
  /** null: called without a key */
  organizationId: string | null;
  mode: 'test' | 'live';
}

function instant(raw: string, field: string): number {
  const t = parseDateTime(raw);
  if (t === undefined) throw new ValidationError(`query parameter "${field}" must be ${DATE_TIME_RULE}, got "${raw}"`, field);
  return t;
}

function pairs(starts: ArrayLike<number>, ends: ArrayLike<number>): Interval[] {
  return Array.from(starts, (start, i) => ({ start, end: ends[i] }));
}

/**
 * GET /freebusy/{userId}: the member's [start, end) tiled by time_slot, each tile free or busy
 * with a reason (decisions.md §4a). Answers are cached 60 s per member; booking changes,
 * calendar syncs and seeds that change the member invalidate them. Bookings of the caller's mode
 * count (live without a key). Returns the JSON body.
 */
export async function getFreeBusy(db: Db, cache: FreeBusyCache, caller: FreeBusyCaller, userId: string, q: FreeBusyQuery) {
  if (!isMemberId(userId)) throw new ValidationError(`path parameter "userId" must be a user id (UUID), got "${userId}"`, 'userId');
  const from = instant(q.start, 'start');
  const to = instant(q.end, 'end');
  if (to <= from) throw new ValidationError('query parameter "end" must be after start', 'end');
  if (to - from > MAX_FREEBUSY_DAYS * 1440 * MINUTE_MS) {
    throw new ValidationError(`query parameter "end" must be at most ${MAX_FREEBUSY_DAYS} days after start`, 'end');
  }
  // The caller's organization is part of the key: an answer is only stored after the member was
  // found in it, so a hit needs no database at all. So is the member's token (answer-cache.ts),
  // taken before the database is read: an invalidation landing while the answer is computed
  // drops the token it will be stored under, so an answer read before a booking committed is
  // never served after it.
  const memberId = userId.toLowerCase();
  const [token] = await hostTokens(cache, [memberId]);
  const cacheKey = `freebusy|${caller.organizationId ?? '*'}|${caller.mode}|${from}|${to}|${q.time_slot}|${token}`;
  const cached = await cache.get(memberId, cacheKey);
  if (typeof cached === 'string') return { body: cached, cached: true };

  const member = await members.findById(db, memberId);
  if (!member || !member.is_active || (caller.organizationId !== null && member.organization_id !== caller.organizationId)) {
    // no member of that id at all: its token goes, so ids made up by callers leave nothing behind
    if (!member) await cache.invalidate([memberId]);
    throw new NotFound(`user "${userId}" not found`);
  }
  const rows = await busyOfMembers(db, [member.id], caller.mode, new Date(from), new Date(to), null);
  const bookings = mergeIntervals(rows.filter((r) => r.kind === 'booking').flatMap((r) => pairs(r.starts, r.ends)));
  const ooo = mergeIntervals(rows.filter((r) => r.kind === 'ooo').flatMap((r) => pairs(r.starts, r.ends)));
  const calendar = mergeIntervals(rows.filter((r) => r.kind === 'calendar').flatMap((r) => pairs(r.starts, r.ends)));
  // Windows of consecutive days join here: a tile over midnight is free if both days work then.
  const working = mergeIntervals(workingWindows(member.working_hours, zoneDays(member.timezone, from, to)));
  const slots = freeBusySlots(from, to, q.time_slot * MINUTE_MS, working, bookings, ooo, calendar);
  const body = JSON.stringify({
    success: true,
    user_id: member.id,
    start: new Date(from).toISOString(),
    end: new Date(to).toISOString(),
    time_slot: q.time_slot,
    slots: slots.map((s) => ({
      start: new Date(s.start).toISOString(),
      end: new Date(s.end).toISOString(),
      status: s.status,
      ...(s.reason ? { reason: s.reason } : {}),
    })),
  });
  await cache.set(member.id, cacheKey, body);
  return { body, cached: false };
}
