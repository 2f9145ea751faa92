import { parseDate } from '../../lib/dates.ts';
import { zoneOffset } from './zone-offsets.ts';

export const DAY_MS = 86_400_000;
export const MINUTE_MS = 60_000;
export const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

/**
 * The UTC instant of a wall-clock time in a zone. Deterministic (luxon's own resolution depends
 * on the current date): an ambiguous time (fall back) takes the earlier instant, a time in a gap
 * (spring forward) is pushed forward by the gap. `wall` is the wall time written as if UTC.
 * Assumes at most one transition within a day of `wall`, true of every zone in use.
 */
export function utcOfWall(zone: string, wall: number): number {
  const oa = zoneOffset(zone, wall - DAY_MS);
  const ob = zoneOffset(zone, wall + DAY_MS);
  const ta = wall - oa * MINUTE_MS;
  if (oa === ob) return ta;
  const tb = wall - ob * MINUTE_MS;
  const aFits = zoneOffset(zone, ta) === oa;
  const bFits = zoneOffset(zone, tb) === ob;
  if (aFits && bFits) return Math.min(ta, tb);
  if (aFits) return ta;
  if (bFits) return tb;
  return Math.max(ta, tb);
}

/** A calendar date "YYYY-MM-DD" as its 00:00 written as UTC (a wall date), or undefined when it is not a real date (2026-02-30). */
export const parseWallDate = parseDate;

/** The local calendar date (its 00:00 written as UTC) of an instant in a zone. */
export function wallDateOf(zone: string, instant: number): number {
  const wall = instant + zoneOffset(zone, instant) * MINUTE_MS;
  return wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);
}

/**
 * A local calendar day as UTC instants [from, to), `wallDate` being its 00:00 written as UTC:
 * the day boundaries zoneDays gives the engine, so whatever counts bookings per day (the
 * daily cap at create, booked_slots) counts them on the same days availability does, also
 * where a DST change skips or repeats midnight.
 */
export function localDayAt(zone: string, wallDate: number): { from: number; to: number } {
  return { from: utcOfWall(zone, wallDate), to: utcOfWall(zone, wallDate + DAY_MS) };
}

/** The local calendar day, in `zone`, that `instant` falls on (see localDayAt). */
export function localDayOf(zone: string, instant: number): { from: number; to: number } {
  return localDayAt(zone, wallDateOf(zone, instant));
}

/**
 * A run of consecutive local dates in one zone: `walls[i]` is date i at 00:00 written as UTC,
 * `starts[i]` the UTC instant the day begins (one extra entry: the end of the last day), and
 * `constantOffset[i]` the day's offset in minutes when it has no transition, else null.
 */
export interface ZoneDays {
  zone: string;
  walls: number[];
  starts: number[];
  constantOffset: (number | null)[];
}

/** The local days of `zone` on which an instant of [fromInstant, toInstant) can fall. */
export function zoneDays(zone: string, fromInstant: number, toInstant: number): ZoneDays {
  const first = wallDateOf(zone, fromInstant);
  const last = wallDateOf(zone, Math.max(fromInstant, toInstant - 1));
  const walls: number[] = [];
  const starts: number[] = [];
  for (let w = first; w <= last + DAY_MS; w += DAY_MS) {
    walls.push(w);
    starts.push(utcOfWall(zone, w));
  }
  walls.pop();
  const constantOffset = walls.map((w, i) => {
    const o1 = (w - starts[i]) / MINUTE_MS;
    const o2 = (w + DAY_MS - starts[i + 1]) / MINUTE_MS;
    return o1 === o2 && zoneOffset(zone, starts[i + 1] - 1) === o1 ? o1 : null;
  });
  return { zone, walls, starts, constantOffset };
}

/** The UTC instant of minute-of-day `m` (0..1440) on day i. */
export function instantOnDay(days: ZoneDays, i: number, m: number): number {
  if (m === 0) return days.starts[i];
  if (m === 1440) return days.starts[i + 1];
  const off = days.constantOffset[i];
  const wall = days.walls[i] + m * MINUTE_MS;
  return off === null ? utcOfWall(days.zone, wall) : wall - off * MINUTE_MS;
}

export function weekdayOf(wallDate: number): (typeof WEEKDAYS)[number] {
  return WEEKDAYS[new Date(wallDate).getUTCDay()];
}
