import { busyFromIcs } from './busy.ts';

/** One CalDAV resource's busy time for a sync: what the calendar-sync store keeps of it. */
export interface ExpandedResource {
  href: string;
  events: number;
  skipped: number;
  starts: Date[];
  ends: Date[];
}

/**
 * The busy blocks of one resource (one `.ics` of a calendar collection) inside the sync window.
 * Text that is no iCalendar at all counts as one skipped event; the rest of the calendar still
 * counts. Pure: no I/O, no clock.
 */
export function expandResource(
  href: string,
  data: string,
  window: { start: Date; end: Date },
  zone: string,
  ownUids: ReadonlySet<string>,
): ExpandedResource {
  let result;
  try {
    result = busyFromIcs(data, { windowStart: window.start, windowEnd: window.end, zone, ownUids });
  } catch {
    return { href, events: 0, skipped: 1, starts: [], ends: [] };
  }
  return {
    href,
    events: result.events,
    skipped: result.skipped,
    starts: result.blocks.map((b) => b.start),
    ends: result.blocks.map((b) => b.end),
  };
}
