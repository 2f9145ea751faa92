import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { localDayAt } from '../../availability/zone-days.ts';
import { StepBudgetExceeded, withStepBudget } from './steps.ts';
import { ianaKey, ianaKeyOf, isIanaZone, trimVtimezones, vtimezoneKey } from './zones.ts';

/**
 * The busy time of iCalendar text (docs/calendars.md, "Busy time"): which events block a host,
 * and when, inside the sync window. Pure: no I/O, no clock; the caller picks the window.
 */

export interface BusyBlock {
  start: Date;
  end: Date;
  /** The event's UID (an instance of a recurring event carries the series' UID). */
  uid: string;
}

export interface BusyOptions {
  /** Start of yesterday UTC, chosen by the caller. */
  windowStart: Date;
  /** windowStart + CALENDAR_SYNC_HORIZON_DAYS. */
  windowEnd: Date;
  /** The member's IANA zone, for DATE (all-day) and floating values. */
  zone: string;
  /**
   * UIDs of this organization's own meetings found in the text (`<root booking id>@booking-service`,
   * each a booking the caller looked up): such an event, whether written back by the service
   * (with X-BOOKING-ID) or copied from the invitation the host was sent (without), is not busy
   * time, since its booking blocks the time itself. Any other event counts, X-BOOKING-ID or not.
   */
  ownUids?: ReadonlySet<string>;
}

export type SkipReason = 'unparseable' | 'unknown-timezone' | 'too-many-occurrences' | 'unsupported-rule';

export interface BusySkip {
  /** The event's UID when it could be read, else null. */
  uid: string | null;
  reason: SkipReason;
}

export interface BusyResult {
  /** Busy intervals clipped to [windowStart, windowEnd), sorted by start; not merged. */
  blocks: BusyBlock[];
  /** Events read: one per UID (a recurring event's master and its overrides are one event). */
  events: number;
  /** Events of which a component could not be read (see `skips`); what could be read still counts. */
  skipped: number;
  /** The organization's own meetings (ownUids): never busy, never skipped. */
  own: number;
  /** Why each skipped event was skipped (codes only: calendar text never reaches a log line). */
  skips: BusySkip[];
}

class Unreadable extends Error {
  readonly reason: SkipReason;

  constructor(reason: SkipReason) {
    super(reason);
    this.reason = reason;
  }
}

/**
 * The most occurrences one recurring event may yield, from its DTSTART to the end of the window.
 * A daily event started in 1972 stays under it; FREQ=SECONDLY or MINUTELY without an end does
 * not, and is skipped as `too-many-occurrences` instead of holding a sync for seconds.
 */
export const MAX_OCCURRENCES = 20_000;

/**
 * The most candidate times ical.js may consider for one event (~0.5-8 µs each; steps.ts says why
 * there must be a bound). Past it the event is skipped as `too-many-occurrences`.
 */
export const MAX_RULE_STEPS = 100_000;

const DAY_MS = 86_400_000;

/** Properties holding DATE-TIME values that a TZID (or its absence: floating) applies to. */
const ZONED_PROPERTIES = new Set(['dtstart', 'dtend', 'recurrence-id', 'rdate', 'exdate']);

interface Blocks {
  vtimezones: string[];
  vevents: string[];
  calendar: boolean;
}

/**
 * The VTIMEZONE and VEVENT blocks of the text, each parsed on its own afterwards so that one
 * broken event (a bad line makes ical.js reject its whole input) costs only that event.
 */
function splitBlocks(text: string): Blocks {
  const out: Blocks = { vtimezones: [], vevents: [], calendar: false };
  let current: string[] | null = null;
  let kind = '';
  let depth = 0;
  const close = () => {
    if (current && kind === 'VEVENT') out.vevents.push(current.join('\r\n'));
    else if (current) out.vtimezones.push(current.join('\r\n'));
    current = null;
  };
  for (const line of text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)) {
    // Continuation lines of a folded property start with a space or tab: never BEGIN/END.
    const upper = line.trimEnd().toUpperCase();
    // A block whose inner component is never closed (END:VALARM lost) ends at its own END, and a
    // block never closed at all ends where the next block or the calendar's end begins: one lost
    // line costs one event, not every event after it.
    if (current && (upper === 'BEGIN:VEVENT' || upper === 'BEGIN:VTIMEZONE' || upper === 'END:VCALENDAR')) close();
    if (current) {
      current.push(line);
      if (upper === `END:${kind}`) close();
      else if (upper.startsWith('BEGIN:')) depth++;
      else if (upper.startsWith('END:') && --depth === 0) close();
    } else if (upper === 'BEGIN:VEVENT' || upper === 'BEGIN:VTIMEZONE') {
      current = [line];
      kind = upper.slice(6);
      depth = 1;
    } else if (upper === 'BEGIN:VCALENDAR') out.calendar = true;
  }
  // A truncated event still counts (as unparseable); a truncated VTIMEZONE is just unreadable.
  close();
  return out;
}

interface Piece {
  uid: string | null;
  component: ICAL.Component | null;
}

function readPiece(block: string): Piece {
  let component: ICAL.Component | null = null;
  try {
    const parsed = new ICAL.Component(ICAL.parse(block) as unknown[]);
    if (parsed.name === 'vevent') component = parsed;
  } catch {
    component = null;
  }
  if (component) {
    const uid = component.getFirstPropertyValue('uid');
    return { uid: typeof uid === 'string' && uid.trim() !== '' ? uid.trim() : null, component };
  }
  const unfolded = block.replace(/\r\n[ \t]/g, '');
  const uid = /^UID(?:;[^:\r\n]*)?:(.+)$/im.exec(unfolded)?.[1]?.trim();
  return { uid: uid || null, component: null };
}

interface Context {
  zone: string;
  windowStart: number;
  windowEnd: number;
  /** TZID → our key, for the TZIDs the file defines with a readable VTIMEZONE. */
  fileZones: Map<string, string>;
  floatingKey: string;
}

/**
 * Points every DATE-TIME of the component at a zone we registered (zones.ts): its TZID's
 * VTIMEZONE, else the IANA/Windows zone it names, else the event cannot be placed in time.
 * Floating values get the member's zone. Must run before ical.js reads any value.
 */
function placeInZones(component: ICAL.Component, ctx: Context): void {
  for (const prop of component.getAllProperties()) {
    if (!ZONED_PROPERTIES.has(prop.name) || (prop.type !== 'date-time' && prop.type !== 'period')) continue;
    const tzid = prop.getFirstParameter('tzid');
    if (tzid) {
      const key = ctx.fileZones.get(tzid) ?? ianaKeyOf(tzid);
      if (!key) throw new Unreadable('unknown-timezone');
      prop.setParameter('tzid', key);
    } else if (prop.jCal.slice(3).some((v: unknown) => (Array.isArray(v) ? v : [v]).some((s) => typeof s === 'string' && floating(s)))) {
      prop.setParameter('tzid', ctx.floatingKey);
    }
  }
}

/** A DATE-TIME (or a PERIOD's start) without Z: in jCal "2026-03-10T09:00:00". */
function floating(value: string): boolean {
  return value.length >= 19 && value[10] === 'T' && !value.endsWith('Z');
}

/** The instant of a value: DATE → the start of that day in the member's zone. */
function instant(t: ICAL.Time, ctx: Context): number {
  if (t.isDate) return localDayAt(ctx.zone, Date.UTC(t.year, t.month - 1, t.day)).from;
  return t.toUnixTime() * 1000;
}

/** Identifies an instance by its RECURRENCE-ID: a date, or an instant. */
function instanceKey(t: ICAL.Time): string {
  return t.isDate ? `d${t.year}-${t.month}-${t.day}` : `t${t.toUnixTime()}`;
}

function textValue(component: ICAL.Component, name: string): string {
  const value = component.getFirstPropertyValue(name);
  return typeof value === 'string' ? value.trim().toUpperCase() : '';
}

const cancelled = (c: ICAL.Component) => textValue(c, 'status') === 'CANCELLED';
const transparent = (c: ICAL.Component) => textValue(c, 'transp') === 'TRANSPARENT';

interface Instance {
  start: number;
  end: number;
  busy: boolean;
}

/**
 * How long each instance lasts (RFC 5545 3.8.5.3): a DTEND gives every instance the same exact
 * length; a DURATION the same nominal one (days and weeks in wall time, hours to seconds exact,
 * 3.3.6), so a one-day DURATION across a DST change is 23 or 25 hours. A DATE event lasts whole
 * days, ending at local midnight.
 */
type Length = { exactMs: number } | { nominal: ICAL.Duration } | { days: ICAL.Duration };

interface Span {
  start: ICAL.Time;
  startMs: number;
  endMs: number;
  length: Length;
}

/** The end of an instance starting at `start` (`startMs`). */
function endOf(start: ICAL.Time, startMs: number, length: Length, ctx: Context): number {
  if ('exactMs' in length) return startMs + length.exactMs;
  if ('days' in length || start.isDate) {
    const end = start.clone();
    end.addDuration('days' in length ? length.days : length.nominal);
    const endMs = instant(end, ctx);
    // A DATE event whose DTEND is not after its DTSTART is read as one day, as calendar apps show it.
    return start.isDate && endMs <= startMs ? instant(nextDay(start), ctx) : endMs;
  }
  const d = length.nominal;
  const sign = d.isNegative ? -1 : 1;
  let base = startMs;
  if (d.weeks || d.days) {
    const day = start.clone();
    day.addDuration(ICAL.Duration.fromData({ weeks: d.weeks, days: d.days, isNegative: d.isNegative }));
    base = instant(day, ctx);
  }
  return base + sign * ((d.hours * 60 + d.minutes) * 60 + d.seconds) * 1000;
}

/**
 * A component's own time: DTSTART and DTEND or DURATION. DATE-TIME without DTEND or DURATION
 * ends when it starts (RFC 5545 3.6.1): a zero-length event, which blocks nothing. A DATE event
 * without either is one day.
 */
function ownSpan(component: ICAL.Component, event: ICAL.Event, ctx: Context): Span {
  const start = event.startDate;
  if (!start) throw new Unreadable('unparseable');
  const startMs = instant(start, ctx);
  let length: Length;
  if (component.hasProperty('dtend')) {
    const end = component.getFirstPropertyValue('dtend') as ICAL.Time;
    length = start.isDate ? { days: end.subtractDate(start) } : { exactMs: instant(end, ctx) - startMs };
  } else if (component.hasProperty('duration')) {
    const duration = component.getFirstPropertyValue('duration') as ICAL.Duration;
    length = start.isDate ? { days: duration } : { nominal: duration };
  } else {
    length = start.isDate ? { days: ICAL.Duration.fromData({ days: 1 }) } : { exactMs: 0 };
  }
  const endMs = endOf(start, startMs, length, ctx);
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs) || endMs < startMs) throw new Unreadable('unparseable');
  return { start, startMs, endMs, length };
}

/**
 * RRULE UNTIL read the way the event meant it: a floating UNTIL (not Z) in the zone of DTSTART,
 * and a DATE UNTIL on a DATE-TIME series as the end of that day (both are out of RFC 5545, but
 * exporters write them; ical.js would read them as UTC midnight).
 */
function normaliseUntil(component: ICAL.Component, start: ICAL.Time): void {
  for (const prop of component.getAllProperties('rrule')) {
    const rule = prop.getFirstValue() as ICAL.Recur;
    const until = rule.until;
    if (!until || start.isDate) continue;
    if (until.isDate) {
      rule.until = ICAL.Time.fromData(
        { year: until.year, month: until.month, day: until.day, hour: 23, minute: 59, second: 59 },
        start.zone,
      );
    } else if (until.zone !== ICAL.Timezone.utcTimezone && until.zone !== start.zone) {
      rule.until = ICAL.Time.fromData(
        { year: until.year, month: until.month, day: until.day, hour: until.hour, minute: until.minute, second: until.second },
        start.zone,
      );
    }
  }
}

/** The instances of a master, overridden ones left out (the overrides give them). */
function expand(master: ICAL.Component, overrides: ICAL.Component[], ctx: Context): Instance[] {
  return withStepBudget(MAX_RULE_STEPS, () => expandWithin(master, overrides, ctx));
}

function expandWithin(master: ICAL.Component, overrides: ICAL.Component[], ctx: Context): Instance[] {
  const event = new ICAL.Event(master, { exceptions: overrides });
  const span = ownSpan(master, event, ctx);
  const masterBusy = !transparent(master);
  const replaced = new Set<string>();
  // A THISANDFUTURE override moving instances earlier lets an instance whose RECURRENCE-ID is
  // past the window's end into it: iterate that much further.
  let earlier = 0;
  let ranged = false;
  for (const o of overrides) {
    const ev = new ICAL.Event(o);
    replaced.add(instanceKey(ev.recurrenceId));
    if (ev.modifiesFuture()) {
      ranged = true;
      if (o.hasProperty('dtstart')) earlier = Math.max(earlier, instant(ev.recurrenceId, ctx) - instant(ev.startDate, ctx));
    }
  }
  const exclusions = takeExdates(master, span.start, ctx);
  const kept = (t: ICAL.Time, at: number) => !replaced.has(instanceKey(t)) && !isExcluded(exclusions, t, at);
  const first: Instance = { start: span.startMs, end: span.endMs, busy: masterBusy };
  const instances: Instance[] = takePeriods(master, ctx)
    .filter((p) => kept(p.time, p.start))
    .map((p) => ({ start: p.start, end: p.end, busy: masterBusy }));
  if (!event.isRecurring()) {
    if (kept(span.start, span.startMs)) instances.unshift(first);
    return instances;
  }

  // ical.js 2.2 expands BYWEEKNO wrongly (FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO gives every Monday
  // but those of week 20): better counted as skipped than read as busy every week.
  if (master.getAllProperties('rrule').some((p) => 'BYWEEKNO' in (p.getFirstValue() as ICAL.Recur).parts)) {
    throw new Unreadable('unsupported-rule');
  }
  normaliseUntil(master, span.start);
  const stopAt = ctx.windowEnd + earlier;
  // An instance starting this long before the window cannot reach into it (+ a day for DST and dates).
  const reach = span.endMs - span.startMs + earlier + DAY_MS;
  // A THISANDFUTURE override can move instances from before the window into it: no fast-forward.
  const from = ranged ? null : fastForward(master, span, reach, ctx);
  const iterator = event.iterator(from ?? undefined);
  let count = 0;
  // Fast-forwarding starts past DTSTART, an instance of the rule that ends before the window.
  let sawStart = from !== null;
  for (let t = iterator.next(); t; t = iterator.next()) {
    if (++count > MAX_OCCURRENCES) throw new Unreadable('too-many-occurrences');
    const at = instant(t, ctx);
    if (at === span.startMs) sawStart = true;
    if (at >= stopAt) break;
    if (at + reach <= ctx.windowStart && !ranged) continue;
    if (!kept(t, at)) continue;
    let start = at;
    let end: number;
    let item = master;
    if (ranged) {
      // ical.js applies a THISANDFUTURE override's shift and length to the later instances.
      const details = event.getOccurrenceDetails(t);
      start = instant(details.startDate, ctx);
      end = instant(details.endDate, ctx);
      if (details.startDate.isDate && end <= start) end = instant(nextDay(details.startDate), ctx);
      item = details.item.component;
    } else {
      end = endOf(t, at, span.length, ctx);
    }
    // An instance moved by a THISANDFUTURE override is busy as that override says.
    instances.push({ start, end, busy: !transparent(item) && (item === master || !cancelled(item)) });
  }
  // DTSTART is the first instance (RFC 5545 3.8.5.3), but ical.js leaves it out when only RDATEs
  // recur, and when it does not match the RRULE (a case RFC 5545 leaves undefined, and calendar
  // apps show): it counts unless an EXDATE or an override takes it.
  if (!sawStart && kept(span.start, span.startMs)) instances.unshift(first);
  return instances;
}

const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
const weekdayOf = (t: ICAL.Time) => WEEKDAYS[t.dayOfWeek() - 1];

/**
 * Where to start expanding a long-running series instead of its DTSTART: a weekly event started
 * years ago would otherwise step through every past week (~15 µs each in ical.js). For a rule
 * whose instances after any of its instances do not depend on what came before (DAILY or
 * WEEKLY, no COUNT, no BY rule but plain BYDAY), starting at an instance a whole number of
 * periods later gives the same instances from there on; all that is skipped ends before the
 * window. Null when the rule is not of that kind or DTSTART is recent.
 */
function fastForward(master: ICAL.Component, span: Span, reach: number, ctx: Context): ICAL.Time | null {
  const rules = master.getAllProperties('rrule');
  if (rules.length !== 1 || master.hasProperty('recurrence-id')) return null;
  const rule = rules[0].getFirstValue() as ICAL.Recur;
  if (rule.count || (rule.freq !== 'DAILY' && rule.freq !== 'WEEKLY')) return null;
  const parts = Object.keys(rule.parts);
  if (parts.some((p) => p !== 'BYDAY')) return null;
  const byday = rule.parts.BYDAY as string[] | undefined;
  if (byday && byday.some((d) => !WEEKDAYS.includes(d))) return null;
  // DTSTART off the rule is an instance only by being DTSTART: shifting it would invent others.
  if (byday && !byday.includes(weekdayOf(span.start))) return null;
  const periodDays = (rule.interval || 1) * (rule.freq === 'WEEKLY' ? 7 : 1);
  const periods = Math.floor((ctx.windowStart - reach - 2 * DAY_MS - span.startMs) / (periodDays * DAY_MS));
  // A DAILY rule with BYDAY needs a shifted start on one of its days; seven tries cover them all.
  for (let k = periods; k >= 2 && k > periods - 7; k--) {
    const start = span.start.clone();
    start.adjust(k * periodDays, 0, 0, 0);
    if (!byday || byday.includes(weekdayOf(start))) return start;
  }
  return null;
}

interface Exclusions {
  instants: Set<number>;
  /** DATE values on a DATE-TIME series: the instance on that day (in DTSTART's zone) goes. */
  days: Set<string>;
}

/**
 * The EXDATEs of a master, taken out of the component: ical.js 2.2 misses an EXDATE that follows
 * one matching no instance (it moves past the stray one without comparing again), and stray ones
 * are common: a series moved to another time keeps the EXDATEs of its old time.
 */
function takeExdates(master: ICAL.Component, start: ICAL.Time, ctx: Context): Exclusions {
  const exclusions: Exclusions = { instants: new Set(), days: new Set() };
  for (const prop of master.getAllProperties('exdate')) {
    for (const value of prop.getValues() as ICAL.Time[]) {
      if (value.isDate && !start.isDate) exclusions.days.add(`${value.year}-${value.month}-${value.day}`);
      else exclusions.instants.add(instant(value, ctx));
    }
  }
  master.removeAllProperties('exdate');
  return exclusions;
}

/**
 * The instances of `RDATE;VALUE=PERIOD` (a start and its own end or duration), taken out of the
 * component: ical.js 2.2 cannot expand them (it fails on the whole event).
 */
function takePeriods(master: ICAL.Component, ctx: Context): { time: ICAL.Time; start: number; end: number }[] {
  const out: { time: ICAL.Time; start: number; end: number }[] = [];
  for (const prop of master.getAllProperties('rdate')) {
    if (prop.type !== 'period') continue;
    for (const period of prop.getValues() as ICAL.Period[]) {
      const start = instant(period.start, ctx);
      const end = period.end ? instant(period.end, ctx) : endOf(period.start, start, { nominal: period.duration }, ctx);
      if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) throw new Unreadable('unparseable');
      out.push({ time: period.start, start, end });
    }
    master.removeProperty(prop);
  }
  return out;
}

function isExcluded(exclusions: Exclusions, t: ICAL.Time, at: number): boolean {
  return exclusions.instants.has(at) || (exclusions.days.size > 0 && exclusions.days.has(`${t.year}-${t.month}-${t.day}`));
}

function nextDay(t: ICAL.Time): ICAL.Time {
  const d = new Date(Date.UTC(t.year, t.month - 1, t.day + 1));
  return ICAL.Time.fromData({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() });
}

/**
 * An override's instance: its own DTSTART and DTEND or DURATION. Exporters leave some out on
 * cancellations and moves: without DTSTART it keeps the RECURRENCE-ID's time, without DTEND and
 * DURATION the master's length.
 */
function overrideInstance(override: ICAL.Component, masterLength: Length | null, ctx: Context): Instance {
  const event = new ICAL.Event(override);
  const rid = event.recurrenceId;
  if (!rid) throw new Unreadable('unparseable');
  const busy = !cancelled(override) && !transparent(override);
  if (override.hasProperty('dtstart') && (override.hasProperty('dtend') || override.hasProperty('duration') || !masterLength)) {
    const span = ownSpan(override, event, ctx);
    return { start: span.startMs, end: span.endMs, busy };
  }
  const start = override.hasProperty('dtstart') ? event.startDate : rid;
  const startMs = instant(start, ctx);
  let length: Length;
  if (override.hasProperty('dtend')) length = { exactMs: instant(override.getFirstPropertyValue('dtend') as ICAL.Time, ctx) - startMs };
  else if (override.hasProperty('duration')) length = { nominal: override.getFirstPropertyValue('duration') as ICAL.Duration };
  else length = masterLength ?? (start.isDate ? { days: ICAL.Duration.fromData({ days: 1 }) } : { exactMs: 0 });
  const endMs = endOf(start, startMs, length, ctx);
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs) || endMs < startMs) throw new Unreadable('unparseable');
  return { start: startMs, end: endMs, busy };
}

function reasonOf(e: unknown): SkipReason {
  if (e instanceof StepBudgetExceeded) return 'too-many-occurrences';
  return e instanceof Unreadable ? e.reason : 'unparseable';
}

function syntheticUid(pieceIndex: number, text: string): string {
  return `no-uid-${createHash('sha256').update(`${pieceIndex}:${text}`).digest('hex').slice(0, 16)}`;
}

/** One CalDAV resource (a VCALENDAR: one event's master + its RECURRENCE-ID overrides), or a whole .ics file. */
export function busyFromIcs(text: string, opts: BusyOptions): BusyResult {
  const windowStart = opts.windowStart.getTime();
  const windowEnd = opts.windowEnd.getTime();
  if (!Number.isFinite(windowStart) || !Number.isFinite(windowEnd) || windowEnd <= windowStart) {
    throw new RangeError('busyFromIcs: windowEnd must be after windowStart');
  }
  if (!isIanaZone(opts.zone)) throw new RangeError(`busyFromIcs: "${opts.zone}" is not an IANA time zone`);

  trimVtimezones();
  const split = splitBlocks(text);
  const fileZones = new Map<string, string>();
  for (const block of split.vtimezones) {
    const known = vtimezoneKey(block);
    if (known && !fileZones.has(known.tzid)) fileZones.set(known.tzid, known.key);
  }
  const ctx: Context = { zone: opts.zone, windowStart, windowEnd, fileZones, floatingKey: ianaKey(opts.zone) };
  const result: BusyResult = { blocks: [], events: 0, skipped: 0, own: 0, skips: [] };

  // Text that is no iCalendar at all is one unreadable resource, not an empty one.
  if (!split.calendar && split.vevents.length === 0) {
    if (text.trim() !== '') {
      result.events = 1;
      result.skipped = 1;
      result.skips.push({ uid: null, reason: 'unparseable' });
    }
    return result;
  }

  const groups = new Map<string, Piece[]>();
  split.vevents.forEach((block, i) => {
    const piece = readPiece(block);
    const key = piece.uid ?? syntheticUid(i, block);
    const group = groups.get(key);
    if (group) group.push(piece);
    else groups.set(key, [piece]);
  });

  for (const [uid, pieces] of groups) {
    result.events++;
    // the organization's own meeting: its booking blocks the time already. X-BOOKING-ID alone
    // proves nothing: another installation's write-back, or another tool, writes it too
    if (opts.ownUids?.has(uid)) {
      result.own++;
      continue;
    }
    let skip: SkipReason | null = pieces.some((p) => !p.component) ? 'unparseable' : null;
    const noteSkip = (e: unknown) => {
      skip ??= reasonOf(e);
    };
    const blocks: Instance[] = [];

    // Place every component in time first; one that cannot be is left out.
    const readable: ICAL.Component[] = [];
    for (const p of pieces) {
      if (!p.component) continue;
      try {
        placeInZones(p.component, ctx);
        readable.push(p.component);
      } catch (e) {
        noteSkip(e);
      }
    }
    let overrides = readable.filter((c) => c.hasProperty('recurrence-id'));
    const masters = readable.filter((c) => !c.hasProperty('recurrence-id'));
    const master = masters[0] ?? null;
    // A second master with the same UID (a merged export) is read as an event of its own.
    const extraMasters = masters.slice(1);

    // Overrides whose RECURRENCE-ID cannot be read are left out, and the event counted skipped.
    overrides = overrides.filter((o) => {
      try {
        const rid = new ICAL.Event(o).recurrenceId;
        instanceKey(rid);
        return true;
      } catch (e) {
        noteSkip(e);
        return false;
      }
    });

    let masterLength: Length | null = null;
    const seriesCancelled = master !== null && cancelled(master);
    if (master) {
      try {
        masterLength = ownSpan(master, new ICAL.Event(master), ctx).length;
      } catch {
        masterLength = null;
      }
    }
    // An override that cannot be placed in time is left out before the master is expanded, so
    // that the master's own instance stands in for it: a meeting still counts, at its series time.
    const overridden: Instance[] = [];
    overrides = overrides.filter((o) => {
      try {
        overridden.push(overrideInstance(o, masterLength, ctx));
        return true;
      } catch (e) {
        noteSkip(e);
        return false;
      }
    });
    if (master) {
      try {
        if (!seriesCancelled) blocks.push(...expand(master, overrides, ctx).filter((i) => i.busy));
      } catch (e) {
        noteSkip(e);
      }
    }
    for (const extra of extraMasters) {
      try {
        if (!cancelled(extra)) blocks.push(...expand(extra, [], ctx).filter((i) => i.busy));
      } catch (e) {
        noteSkip(e);
      }
    }
    if (!seriesCancelled) blocks.push(...overridden.filter((i) => i.busy));

    if (skip) {
      result.skipped++;
      result.skips.push({ uid: pieces.some((p) => p.uid) ? uid : null, reason: skip });
    }
    for (const b of blocks) {
      const start = Math.max(b.start, windowStart);
      const end = Math.min(b.end, windowEnd);
      if (end > start) result.blocks.push({ start: new Date(start), end: new Date(end), uid });
    }
  }
  result.blocks.sort((a, b) => a.start.getTime() - b.start.getTime() || a.end.getTime() - b.end.getTime() || cmp(a.uid, b.uid));
  return result;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
