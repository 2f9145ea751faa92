import type { Db } from '../../db/pool.ts';
import type { TeamMember } from '../../db/queries/members.ts';
import * as members from '../../db/queries/members.ts';
import type { HostInput } from '../availability/engine.ts';
import { hostSlotStarts } from '../availability/engine.ts';
import { hostInputs } from '../availability/find-slots.ts';
import { dateParam } from '../availability/get-availability.ts';
import { DAY_MS, localDayAt } from '../availability/zone-days.ts';
import type { MemberListQuery } from './list.ts';
import { filterOf, page } from './list.ts';
import { memberJson } from './present.ts';

/** How far past `date` next_available_slot looks before giving up (null). */
export const NEXT_SLOT_HORIZON_DAYS = 30;
/** Open slots of `duration` are looked for every this many minutes (or every `duration`, if shorter). */
const STEP_MINUTES = 15;

export interface AvailableQuery extends Omit<MemberListQuery, 'is_active'> {
  date?: string;
  duration: number;
}

/** `date` (default: today in UTC) as its 00:00 written as UTC. */
function parseDate(raw: string | undefined, now: Date): number {
  return raw === undefined ? now.getTime() - (now.getTime() % DAY_MS) : dateParam(raw, 'date');
}

function firstOpen(host: HostInput, from: number, to: number, duration: number, now: Date): number | undefined {
  const rules = {
    duration,
    slotInterval: Math.min(duration, STEP_MINUTES),
    bufferBefore: 0,
    bufferAfter: 0,
    from,
    to,
    earliest: now.getTime(),
  };
  return hostSlotStarts(host, rules)[0];
}

/**
 * GET /team/members/available: each active member's day on `date` in the member's own zone
 * (decisions.md §4a): open when a `duration` slot fits working hours clear of bookings (this
 * key's mode), out-of-office, the daily cap and the past.
 */
export async function availableMembers(
  db: Db,
  auth: { organizationId: string; mode: 'test' | 'live' },
  q: AvailableQuery,
  now: Date,
  showPersonal: boolean,
) {
  const wallDate = parseDate(q.date, now);
  const filter = { ...filterOf(auth.organizationId, q), isActive: true };
  const { total, members: list } = await members.list(db, filter, q.limit, q.offset);
  const dayOf = new Map(list.map((m) => [m.id, localDayAt(m.timezone, wallDate)]));
  const lo = Math.min(...[...dayOf.values()].map((d) => d.from));
  const hi = Math.max(...[...dayOf.values()].map((d) => d.to));
  const inputs = list.length ? await hostInputs(db, list, auth.mode, new Date(lo), new Date(hi)) : [];
  const results = inputs.map((host) => {
    const day = dayOf.get(host.id)!;
    const open = firstOpen(host, day.from, day.to, q.duration, now);
    return { host, day, open, booked: Array.from(host.bookingStarts).filter((t) => t >= day.from && t < day.to).length };
  });
  const unavailable = results.filter((r) => r.open === undefined);
  const next = new Map<string, number>();
  if (unavailable.length) {
    const from = Math.min(...unavailable.map((r) => r.day.to));
    const to = Math.max(...unavailable.map((r) => r.day.to)) + NEXT_SLOT_HORIZON_DAYS * DAY_MS;
    const later = await hostInputs(
      db,
      unavailable.map((r) => list.find((m) => m.id === r.host.id)!) as TeamMember[],
      auth.mode,
      new Date(from),
      new Date(to),
    );
    for (const [i, host] of later.entries()) {
      const start = unavailable[i].day.to;
      const found = firstOpen(host, start, start + NEXT_SLOT_HORIZON_DAYS * DAY_MS, q.duration, now);
      if (found !== undefined) next.set(host.id, found);
    }
  }
  return {
    date: new Date(wallDate).toISOString().slice(0, 10),
    members: list.map((m, i) => {
      const r = results[i];
      const nextSlot = r.open === undefined && next.has(m.id) ? new Date(next.get(m.id)!).toISOString() : null;
      return {
        ...memberJson(m, showPersonal),
        availability: {
          is_available: r.open !== undefined,
          next_available_slot: nextSlot,
          booked_slots: r.booked,
          max_bookings_per_day: m.max_bookings_per_day,
        },
      };
    }),
    pagination: page(total, q.limit, q.offset),
  };
}
