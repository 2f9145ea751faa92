import { IANAZone } from 'luxon';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/**
 * A zone's UTC offset (minutes) at an instant, memoised per UTC day. Asking Intl (what luxon's
 * IANAZone.offset does) costs ~15 µs a call, too slow for 50 hosts × 30 days. Offsets are facts
 * of the tz database, so the memo is safe to share: one Intl call per day at its start, and on a
 * day whose offset changes, a binary search to the minute of the transition.
 */
interface Day {
  before: number;
  after: number;
  /** First instant with offset `after`; Infinity when the day has no transition. */
  at: number;
}

const MAX_DAYS_PER_ZONE = 50_000;
const zones = new Map<string, { zone: IANAZone; startOffsets: Map<number, number>; days: Map<number, Day> }>();

function entry(name: string) {
  let z = zones.get(name);
  if (!z) {
    z = { zone: IANAZone.create(name), startOffsets: new Map(), days: new Map() };
    zones.set(name, z);
  }
  if (z.days.size > MAX_DAYS_PER_ZONE) {
    z.days.clear();
    z.startOffsets.clear();
  }
  return z;
}

function startOffset(z: ReturnType<typeof entry>, dayIndex: number): number {
  let o = z.startOffsets.get(dayIndex);
  if (o === undefined) {
    o = z.zone.offset(dayIndex * DAY_MS);
    z.startOffsets.set(dayIndex, o);
  }
  return o;
}

export function zoneOffset(name: string, instant: number): number {
  const z = entry(name);
  const d = Math.floor(instant / DAY_MS);
  let day = z.days.get(d);
  if (!day) {
    const before = startOffset(z, d);
    const after = startOffset(z, d + 1);
    if (before === after) day = { before, after, at: Infinity };
    else {
      let lo = d * DAY_MS;
      let hi = (d + 1) * DAY_MS;
      while (hi - lo > MINUTE_MS) {
        const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
        if (z.zone.offset(mid) === before) lo = mid;
        else hi = mid;
      }
      day = { before, after, at: hi };
    }
    z.days.set(d, day);
  }
  return instant < day.at ? day.before : day.after;
}
