import type { Interval } from './intervals.ts';
import type { ZoneDays } from './zone-days.ts';
import { instantOnDay, weekdayOf } from './zone-days.ts';

export interface WorkingHoursRule {
  days: readonly string[];
  /** HH:MM in the member's zone */
  start: string;
  /** HH:MM, after start; 24:00 is the end of the day */
  end: string;
}

/** A working window on one local day; `day` indexes the ZoneDays it came from. */
export interface Window extends Interval {
  day: number;
}

function minuteOfDay(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

/**
 * A member's working windows on each local day, in UTC, sorted. Rules of the same day that
 * overlap or touch are joined; windows of different days are never joined, so the slot grid of
 * a day is anchored at that day's window start whatever range is asked for.
 */
export function workingWindows(rules: readonly WorkingHoursRule[], days: ZoneDays): Window[] {
  const parsed = rules.map((r) => ({ days: new Set(r.days), start: minuteOfDay(r.start), end: minuteOfDay(r.end) }));
  const out: Window[] = [];
  for (let i = 0; i < days.walls.length; i++) {
    const weekday = weekdayOf(days.walls[i]);
    const today: Interval[] = [];
    for (const r of parsed) {
      if (!r.days.has(weekday)) continue;
      const start = instantOnDay(days, i, r.start);
      const end = instantOnDay(days, i, r.end);
      if (end > start) today.push({ start, end });
    }
    if (today.length === 0) continue;
    today.sort((a, b) => a.start - b.start);
    let cur: Window = { start: today[0].start, end: today[0].end, day: i };
    for (let k = 1; k < today.length; k++) {
      if (today[k].start <= cur.end) cur.end = Math.max(cur.end, today[k].end);
      else {
        out.push(cur);
        cur = { start: today[k].start, end: today[k].end, day: i };
      }
    }
    out.push(cur);
  }
  return out;
}
