import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { IANAZone } from 'luxon';
import { findIana } from 'windows-iana';
import { utcOfWall } from '../../availability/zone-days.ts';
import { withStepBudget } from './steps.ts';

/**
 * Time zones for the iCalendar reader. ical.js looks a TZID up in the file's VTIMEZONEs, then in
 * its process-wide TimezoneService. We rewrite every TZID of a component to a key of our own
 * before ical.js reads a value, and register under that key the zone it must mean:
 * - `vtz:N`: the file's own VTIMEZONE (RFC 5545: the definition in the file wins), built once
 *   per distinct VTIMEZONE text and kept in a bounded cache. Building one is costly (Outlook's
 *   rules start in 1601: ~8 ms of expansion), and a calendar repeats the same few thousands of times.
 * - `iana:Area/City`: a TZID without a VTIMEZONE, read as an IANA name, a Windows name as
 *   Outlook/Exchange write them ("W. Europe Standard Time", through CLDR's table), or a path
 *   ending in an IANA name (old Lightning: "/mozilla.org/20050126_1/Europe/Berlin"). Floating
 *   times get the member's zone the same way. Offsets come from the tz database (luxon/Intl),
 *   resolved like the availability engine's working hours: a wall time in a spring-forward gap
 *   moves forward by the gap (RFC 5545's "offset before the gap"), a repeated one takes the
 *   earlier instant (RFC 5545's "first occurrence").
 * Both kinds are facts of their text or name, so sharing them between calls is safe.
 */

/** A zone whose offsets come from the tz database instead of a VTIMEZONE. */
class IanaTimezone extends ICAL.Timezone {
  readonly iana: string;

  constructor(key: string, iana: string) {
    super({ tzid: key });
    this.iana = iana;
  }

  override utcOffset(tt: ICAL.Time): number {
    const wall = Date.UTC(tt.year, tt.month - 1, tt.day, tt.hour, tt.minute, tt.second);
    return (wall - utcOfWall(this.iana, wall)) / 1000;
  }
}

/** The registered key of an IANA zone (valid names only: check with ianaName first). */
export function ianaKey(iana: string): string {
  const key = `iana:${iana}`;
  if (!ICAL.TimezoneService.has(key)) ICAL.TimezoneService.register(new IanaTimezone(key, iana), key);
  return key;
}

const MAX_CACHED_NAMES = 1_000;
/** TZID → registered key (null: no zone we know); asking Intl whether a name is valid costs ~10 µs. */
const names = new Map<string, string | null>();

/** The key of the zone a TZID names when the file has no VTIMEZONE for it, or undefined. */
export function ianaKeyOf(tzid: string): string | undefined {
  let key = names.get(tzid);
  if (key === undefined) {
    const name = ianaName(tzid);
    key = name ? ianaKey(name) : null;
    if (names.size >= MAX_CACHED_NAMES) names.clear();
    names.set(tzid, key);
  }
  return key ?? undefined;
}

const validZones = new Set<string>();

/** Whether luxon (Intl) knows the zone; remembered, the question costs ~10 µs. */
export function isIanaZone(zone: string): boolean {
  if (validZones.has(zone)) return true;
  if (!IANAZone.isValidZone(zone)) return false;
  if (validZones.size < MAX_CACHED_NAMES) validZones.add(zone);
  return true;
}

/** The IANA zone a TZID names without a VTIMEZONE, or undefined when it is none we know. */
export function ianaName(tzid: string): string | undefined {
  const name = tzid.trim();
  if (name === '') return undefined;
  if (IANAZone.isValidZone(name)) return name;
  const windows = findIana(name)[0];
  if (windows && IANAZone.isValidZone(windows)) return windows;
  // "/mozilla.org/20050126_1/Europe/Berlin", "/freeassociation.sourceforge.net/Tzfile/Europe/Berlin"
  const tail = /([A-Za-z_]+\/[A-Za-z0-9_+-]+(?:\/[A-Za-z0-9_+-]+)?)$/.exec(name);
  if (tail && name.startsWith('/') && IANAZone.isValidZone(tail[1])) return tail[1];
  return undefined;
}

/**
 * A file's VTIMEZONE, ical.js's reading of it, answered from a memo per local date: ical.js walks
 * its list of changes and clones them on every call (~20 µs), and a sync asks for the same dates
 * thousands of times. A date whose first and last second have the same offset has it all day
 * (no zone changes twice a day); any other date is asked of ical.js every time.
 */
class VtimezoneTimezone extends ICAL.Timezone {
  readonly #days = new Map<number, number | null>();

  override utcOffset(tt: ICAL.Time): number {
    const date = Date.UTC(tt.year, tt.month - 1, tt.day);
    let offset = this.#days.get(date);
    if (offset === undefined) {
      const at = (hour: number, minute: number, second: number) => {
        const time = ICAL.Time.fromData({ year: tt.year, month: tt.month, day: tt.day, hour, minute, second });
        return withStepBudget(MAX_ZONE_STEPS, () => super.utcOffset(time));
      };
      const first = at(0, 0, 0);
      offset = first === at(23, 59, 59) ? first : null;
      if (this.#days.size >= MAX_DAYS_PER_ZONE) this.#days.clear();
      this.#days.set(date, offset);
    }
    return offset ?? withStepBudget(MAX_ZONE_STEPS, () => super.utcOffset(tt));
  }
}

const MAX_DAYS_PER_ZONE = 20_000;

/**
 * The most iterator steps one VTIMEZONE may take to expand (~40 µs each): Outlook's yearly rules
 * from 1601 take ~860; an observance repeating hourly from 1601 would take 3.7 million (~50 s).
 */
const MAX_ZONE_STEPS = 5_000;

/** The most VTIMEZONE definitions kept between calls (each distinct text one entry). */
const MAX_CACHED_VTIMEZONES = 256;
const MAX_VTIMEZONE_CHARS = 100_000;

/**
 * VTIMEZONE text (its SHA-256) → its registered key, or null for a definition that cannot be read (remembered
 * too, so a calendar repeating a bad one pays once). A Map iterates oldest first: an LRU.
 */
const vtimezones = new Map<string, { tzid: string; key: string } | null>();
let vtimezoneSerial = 0;

/**
 * The key of a VTIMEZONE block (its text, CRLF line ends), or undefined when ical.js cannot read
 * it (then the TZID falls back to its name). Evicts the oldest definitions first; callers register
 * everything they need at the start of a call, so an eviction never hits a zone in use.
 */
export function vtimezoneKey(block: string): { tzid: string; key: string } | undefined {
  // Real definitions are a few kilobytes (Apple's with the full history of a zone, ~20 KB).
  if (block.length > MAX_VTIMEZONE_CHARS) return undefined;
  const digest = createHash('sha256').update(block).digest('base64');
  const known = vtimezones.get(digest);
  if (known === null || (known && ICAL.TimezoneService.has(known.key))) {
    vtimezones.delete(digest);
    vtimezones.set(digest, known);
    return known ?? undefined;
  }
  const read = readVtimezone(block);
  vtimezones.set(digest, read ?? null);
  return read;
}

function readVtimezone(block: string): { tzid: string; key: string } | undefined {
  let component: ICAL.Component;
  try {
    component = new ICAL.Component(ICAL.parse(block) as unknown[]);
  } catch {
    return undefined;
  }
  const tzid = component.getFirstPropertyValue('tzid');
  if (component.name !== 'vtimezone' || typeof tzid !== 'string' || tzid === '') return undefined;
  const observances = component.getAllSubcomponents().filter((c) => c.name === 'standard' || c.name === 'daylight');
  if (observances.length === 0) return undefined;
  const key = `vtz:${++vtimezoneSerial}`;
  const zone = new VtimezoneTimezone({ component, tzid: key });
  try {
    // Expands the observances now, to five years past the present (ical.js's own horizon), so a
    // broken or runaway one is dropped here rather than failing inside an event.
    withStepBudget(MAX_ZONE_STEPS, () => zone.utcOffset(ICAL.Time.fromData({ year: 2000, month: 1, day: 1, hour: 12 })));
  } catch {
    return undefined;
  }
  ICAL.TimezoneService.register(zone, key);
  return { tzid, key };
}

/** Drops the oldest cached VTIMEZONEs beyond the bound; call before a new call registers any. */
export function trimVtimezones(): void {
  while (vtimezones.size > MAX_CACHED_VTIMEZONES) {
    const [digest, known] = vtimezones.entries().next().value as [string, { key: string } | null];
    vtimezones.delete(digest);
    if (known) ICAL.TimezoneService.remove(known.key);
  }
}
