import type { Interval } from './intervals.ts';

export type BusyReason = 'booking' | 'calendar' | 'out_of_office' | 'outside_working_hours';

export interface FreeBusySlot {
  start: number;
  end: number;
  status: 'free' | 'busy';
  reason?: BusyReason;
}

/**
 * Tiles [from, to) in steps of `step` ms (the last tile may be shorter) and marks each tile
 * (decisions.md §4a): free only when wholly inside working hours and clear of bookings and
 * out-of-office and the member's own calendars. A busy tile gives one reason, the first that
 * applies of booking, calendar, out_of_office, outside_working_hours. All four lists must be
 * merged (sorted, disjoint).
 */
export function freeBusySlots(
  from: number,
  to: number,
  step: number,
  working: readonly Interval[],
  bookings: readonly Interval[],
  outOfOffice: readonly Interval[],
  calendar: readonly Interval[] = [],
): FreeBusySlot[] {
  const out: FreeBusySlot[] = [];
  let w = 0;
  let b = 0;
  let o = 0;
  let c = 0;
  for (let start = from; start < to; start += step) {
    const end = Math.min(start + step, to);
    while (b < bookings.length && bookings[b].end <= start) b++;
    while (o < outOfOffice.length && outOfOffice[o].end <= start) o++;
    while (w < working.length && working[w].end <= start) w++;
    while (c < calendar.length && calendar[c].end <= start) c++;
    let reason: BusyReason | undefined;
    if (b < bookings.length && bookings[b].start < end) reason = 'booking';
    else if (c < calendar.length && calendar[c].start < end) reason = 'calendar';
    else if (o < outOfOffice.length && outOfOffice[o].start < end) reason = 'out_of_office';
    else if (!(w < working.length && working[w].start <= start && working[w].end >= end)) reason = 'outside_working_hours';
    out.push(reason ? { start, end, status: 'busy', reason } : { start, end, status: 'free' });
  }
  return out;
}
