import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { busyFromIcs } from '../../../src/domain/calendars/ics/busy.ts';
import { icsCorpus } from '../../helpers/ics-corpus.ts';

/**
 * busyFromIcs against a brute-force oracle written without ical.js: random DAILY/WEEKLY rules
 * (INTERVAL, BYDAY, WKST, COUNT or UNTIL or no end) with random EXDATEs are expanded by walking
 * every calendar day with plain integer day arithmetic, and placed in time with luxon. Both must
 * give exactly the same clipped blocks, also when the file defines the zone with a VTIMEZONE.
 * Times of day stay between 08:00 and 20:00, away from DST transitions, where iCalendar's own
 * rules (not the oracle's) decide.
 */

const DAY_MS = 86_400_000;
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata', 'America/Sao_Paulo', 'Pacific/Auckland'];
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
/** 2026-01-01 as a day number (days since 1970-01-01). */
const DAY_2026 = Date.UTC(2026, 0, 1) / DAY_MS;

/** Monday = 0 ... Sunday = 6 (1970-01-01, day 0, was a Thursday). */
const weekday = (day: number) => (((day + 3) % 7) + 7) % 7;

function ymd(day: number): { year: number; month: number; day: number } {
  const d = new Date(day * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const icsDate = (day: number) => {
  const d = ymd(day);
  return `${d.year}${pad(d.month)}${pad(d.day)}`;
};
const icsTime = (minute: number) => `${pad(Math.floor(minute / 60))}${pad(minute % 60)}00`;
const icsUtc = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

type Mode = 'tzid' | 'utc' | 'floating' | 'allday';

/**
 * VTIMEZONEs as Google writes them, whose rules match the tz database from 2007 on: a case in one
 * of these zones may carry its definition, which must then read exactly as the IANA name does.
 */
const VTIMEZONES: Record<string, string[]> = {
  'Europe/Berlin': [
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0200',
    'DTSTART:19700329T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
    'END:DAYLIGHT',
    'BEGIN:STANDARD',
    'TZOFFSETFROM:+0200',
    'TZOFFSETTO:+0100',
    'DTSTART:19701025T030000',
    'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
    'END:STANDARD',
  ],
  'America/New_York': [
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:-0500',
    'TZOFFSETTO:-0400',
    'DTSTART:20070311T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
    'END:DAYLIGHT',
    'BEGIN:STANDARD',
    'TZOFFSETFROM:-0400',
    'TZOFFSETTO:-0500',
    'DTSTART:20071104T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
    'END:STANDARD',
  ],
  'Australia/Sydney': [
    'BEGIN:STANDARD',
    'TZOFFSETFROM:+1100',
    'TZOFFSETTO:+1000',
    'DTSTART:20080406T030000',
    'RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:+1000',
    'TZOFFSETTO:+1100',
    'DTSTART:20081005T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU',
    'END:DAYLIGHT',
  ],
};

interface Case {
  mode: Mode;
  /** In 'tzid' mode, whether the file carries a VTIMEZONE for eventZone (when VTIMEZONES has one). */
  withVtimezone: boolean;
  eventZone: string;
  memberZone: string;
  freq: 'DAILY' | 'WEEKLY';
  interval: number;
  byday: number[] | null;
  wkst: number;
  /** Day number of DTSTART (before moving it onto the rule), and its minute of the day. */
  startDay: number;
  startMinute: number;
  /** Minutes for timed events, days for all-day ones. */
  length: number;
  end: { count: number } | { untilDays: number; untilMinute: number } | null;
  /** Indexes into the rule's instances to exclude, and days that are no instance at all. */
  exdateIndexes: number[];
  strayExdateDays: number[];
  exdateInUtc: boolean;
  windowDay: number;
  horizon: number;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  mode: fc.constantFrom<Mode>('tzid', 'utc', 'floating', 'allday'),
  withVtimezone: fc.boolean(),
  eventZone: fc.constantFrom(...ZONES),
  memberZone: fc.constantFrom(...ZONES),
  freq: fc.constantFrom<'DAILY' | 'WEEKLY'>('DAILY', 'WEEKLY'),
  interval: fc.integer({ min: 1, max: 4 }),
  byday: fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }), { nil: null }),
  wkst: fc.constantFrom(0, 6),
  startDay: fc.integer({ min: DAY_2026 - 330, max: DAY_2026 + 150 }),
  startMinute: fc.integer({ min: 8 * 4, max: 17 * 4 }).map((q) => q * 15),
  length: fc.integer({ min: 1, max: 12 }).map((q) => q * 15),
  end: fc.oneof(
    fc.record({ count: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ untilDays: fc.integer({ min: 0, max: 300 }), untilMinute: fc.integer({ min: 0, max: 1439 }) }),
    fc.constant(null),
  ),
  exdateIndexes: fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 8 }),
  strayExdateDays: fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { maxLength: 3 }),
  exdateInUtc: fc.boolean(),
  windowDay: fc.integer({ min: DAY_2026 + 30, max: DAY_2026 + 120 }),
  horizon: fc.integer({ min: 3, max: 200 }),
});

/** Where a wall time of the case falls, independently of the code under test (luxon). */
function wallInstant(c: Case, day: number, minute: number): number {
  const { year, month, day: d } = ymd(day);
  if (c.mode === 'utc') return day * DAY_MS + minute * 60_000;
  const zone = c.mode === 'tzid' ? c.eventZone : c.memberZone;
  return DateTime.fromObject({ year, month, day: d, hour: Math.floor(minute / 60), minute: minute % 60 }, { zone }).toMillis();
}

const dayStart = (c: Case, day: number) => DateTime.fromObject(ymd(day), { zone: c.memberZone }).toMillis();

/** The rule's DTSTART: the case's start day moved forward onto the first day the rule allows. */
function firstDay(c: Case): number {
  let day = c.startDay;
  while (c.byday && !c.byday.includes(weekday(day))) day++;
  return day;
}

/** Every instance day of the rule from DTSTART to lastDay, COUNT applied, by walking each day. */
function ruleDays(c: Case, lastDay: number): number[] {
  const d0 = firstDay(c);
  const days: number[] = [];
  const byday = c.byday ?? (c.freq === 'WEEKLY' ? [weekday(d0)] : null);
  const weekOf = (day: number) => day - ((weekday(day) - c.wkst + 7) % 7);
  for (let day = d0; day <= lastDay; day++) {
    if (byday && !byday.includes(weekday(day))) continue;
    const periods = c.freq === 'DAILY' ? day - d0 : (weekOf(day) - weekOf(d0)) / 7;
    if (periods % c.interval !== 0) continue;
    days.push(day);
    if (c.end && 'count' in c.end && days.length === c.end.count) break;
  }
  return days;
}

function untilInstant(c: Case): { day: number; ms: number } | null {
  if (!c.end || !('untilDays' in c.end)) return null;
  const day = firstDay(c) + c.end.untilDays;
  return { day, ms: c.mode === 'floating' ? wallInstant(c, day, c.end.untilMinute) : day * DAY_MS + c.end.untilMinute * 60_000 };
}

function oracle(c: Case): { start: number; end: number }[] {
  const windowStart = c.windowDay * DAY_MS;
  const windowEnd = windowStart + c.horizon * DAY_MS;
  const until = untilInstant(c);
  let days = ruleDays(c, c.windowDay + c.horizon + 2);
  if (until) {
    // DTSTART is the first instance of the set (RFC 5545 3.8.5.3), even with an UNTIL before it.
    days = days.filter((d) => d === days[0] || (c.mode === 'allday' ? d <= until.day : wallInstant(c, d, c.startMinute) <= until.ms));
  }
  const excluded = new Set([
    ...c.exdateIndexes.map((i) => days[i]).filter((d) => d !== undefined),
    ...c.strayExdateDays.map((k) => firstDay(c) + k),
  ]);
  days = days.filter((d) => !excluded.has(d));
  const blocks: { start: number; end: number }[] = [];
  for (const d of days) {
    let start: number;
    let end: number;
    if (c.mode === 'allday') {
      start = dayStart(c, d);
      end = dayStart(c, d + c.length / 15);
    } else {
      start = wallInstant(c, d, c.startMinute);
      // DTEND gives every instance the exact length of the first (RFC 5545 3.8.5.3).
      end = start + (wallInstant(c, firstDay(c), c.startMinute + c.length) - wallInstant(c, firstDay(c), c.startMinute));
    }
    const s = Math.max(start, windowStart);
    const e = Math.min(end, windowEnd);
    if (e > s) blocks.push({ start: s, end: e });
  }
  return blocks.sort((a, b) => a.start - b.start || a.end - b.end);
}

function toIcs(c: Case): string {
  const d0 = firstDay(c);
  const value = (day: number, minute: number): string => {
    if (c.mode === 'allday') return `;VALUE=DATE:${icsDate(day)}`;
    if (c.mode === 'utc') return `:${icsDate(day)}T${icsTime(minute)}Z`;
    if (c.mode === 'floating') return `:${icsDate(day)}T${icsTime(minute)}`;
    return `;TZID=${c.eventZone}:${icsDate(day)}T${icsTime(minute)}`;
  };
  const parts = [`FREQ=${c.freq}`, `INTERVAL=${c.interval}`, `WKST=${WEEKDAYS[c.wkst]}`];
  if (c.byday) parts.push(`BYDAY=${c.byday.map((d) => WEEKDAYS[d]).join(',')}`);
  const until = untilInstant(c);
  if (c.end && 'count' in c.end) parts.push(`COUNT=${c.end.count}`);
  else if (until) {
    if (c.mode === 'allday') parts.push(`UNTIL=${icsDate(until.day)}`);
    else if (c.mode === 'floating') parts.push(`UNTIL=${icsDate(until.day)}T${icsTime((c.end as { untilMinute: number }).untilMinute)}`);
    else parts.push(`UNTIL=${icsUtc(until.ms)}`);
  }
  const days = ruleDays(c, c.windowDay + c.horizon + 2);
  const exdays = [...c.exdateIndexes.map((i) => days[i]).filter((d) => d !== undefined), ...c.strayExdateDays.map((k) => d0 + k)];
  const exdates = exdays.map((d) =>
    c.exdateInUtc && c.mode === 'tzid' ? `EXDATE:${icsUtc(wallInstant(c, d, c.startMinute))}` : `EXDATE${value(d, c.startMinute)}`,
  );
  const end = c.mode === 'allday' ? `DTEND${value(d0 + c.length / 15, 0)}` : `DTEND${value(d0, c.startMinute + c.length)}`;
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//property//EN',
    ...(c.mode === 'tzid' && c.withVtimezone && VTIMEZONES[c.eventZone]
      ? ['BEGIN:VTIMEZONE', `TZID:${c.eventZone}`, ...VTIMEZONES[c.eventZone], 'END:VTIMEZONE']
      : []),
    'BEGIN:VEVENT',
    'UID:property@test',
    'DTSTAMP:20260101T000000Z',
    `DTSTART${value(d0, c.startMinute)}`,
    end,
    `RRULE:${parts.join(';')}`,
    ...exdates,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

function optionsOf(c: Case) {
  const windowStart = new Date(c.windowDay * DAY_MS);
  return { windowStart, windowEnd: new Date(windowStart.getTime() + c.horizon * DAY_MS), zone: c.memberZone };
}

describe('busyFromIcs against a brute-force expansion', () => {
  it('expands random DAILY/WEEKLY rules with EXDATEs exactly as walking the calendar day by day does', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const result = busyFromIcs(toIcs(c), optionsOf(c));
        assert.deepEqual(result.skips, []);
        const got = result.blocks.map((b) => ({ start: b.start.getTime(), end: b.end.getTime() }));
        const want = oracle(c);
        assert.deepEqual(
          got.map((b) => `${new Date(b.start).toISOString()}/${new Date(b.end).toISOString()}`),
          want.map((b) => `${new Date(b.start).toISOString()}/${new Date(b.end).toISOString()}`),
        );
      }),
      { numRuns: Number(process.env.ICS_PROPERTY_RUNS ?? 400) },
    );
  });
});

/** Events of every shape, many reaching far outside the window. */
const eventArb = fc
  .record({
    kind: fc.constantFrom('timed', 'allday', 'floating'),
    startOffsetDays: fc.integer({ min: -400, max: 400 }),
    minute: fc.integer({ min: 0, max: 1439 }),
    lengthMinutes: fc.integer({ min: 0, max: 60 * 24 * 60 }),
    lengthDays: fc.integer({ min: 1, max: 400 }),
    rule: fc.constantFrom(
      '',
      'RRULE:FREQ=DAILY',
      'RRULE:FREQ=WEEKLY;BYDAY=MO,TH',
      'RRULE:FREQ=MONTHLY;BYMONTHDAY=-1',
      'RRULE:FREQ=YEARLY;COUNT=3',
    ),
    rdateOffsetDays: fc.option(fc.integer({ min: -500, max: 500 }), { nil: null }),
    movedOffsetDays: fc.option(fc.integer({ min: -500, max: 500 }), { nil: null }),
  })
  .map((e) => e);

describe('busy blocks stay inside the window', () => {
  it('for events of every shape, also far outside it, and never throws', () => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: DAY_2026, max: DAY_2026 + 200 }),
        fc.integer({ min: 1, max: 200 }),
        fc.constantFrom(...ZONES),
        (events, windowDay, horizon, zone) => {
          const windowStart = windowDay * DAY_MS;
          const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0'];
          events.forEach((e, i) => {
            const day = windowDay + e.startOffsetDays;
            const at = (d: number) =>
              e.kind === 'allday' ? `;VALUE=DATE:${icsDate(d)}` : `:${icsDate(d)}T${icsTime(e.minute)}${e.kind === 'timed' ? 'Z' : ''}`;
            lines.push('BEGIN:VEVENT', `UID:e${i}`, `DTSTART${at(day)}`);
            lines.push(e.kind === 'allday' ? `DURATION:P${e.lengthDays}D` : `DURATION:PT${e.lengthMinutes}M`);
            if (e.rule) lines.push(e.rule);
            if (e.rdateOffsetDays !== null) lines.push(`RDATE${at(day + e.rdateOffsetDays)}`);
            lines.push('END:VEVENT');
            if (e.rule && e.movedOffsetDays !== null) {
              lines.push('BEGIN:VEVENT', `UID:e${i}`, `RECURRENCE-ID${at(day)}`, `DTSTART${at(day + e.movedOffsetDays)}`);
              lines.push(e.kind === 'allday' ? `DURATION:P${e.lengthDays}D` : `DURATION:PT${e.lengthMinutes}M`, 'END:VEVENT');
            }
          });
          lines.push('END:VCALENDAR', '');
          const windowEnd = windowStart + horizon * DAY_MS;
          const result = busyFromIcs(lines.join('\r\n'), { windowStart: new Date(windowStart), windowEnd: new Date(windowEnd), zone });
          assert.equal(result.events, events.length);
          for (const b of result.blocks) {
            assert.ok(b.start.getTime() >= windowStart, `${b.start.toISOString()} before the window`);
            assert.ok(b.end.getTime() <= windowEnd, `${b.end.toISOString()} after the window`);
            assert.ok(b.start < b.end, 'empty block');
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('for corpus files cut, shuffled and corrupted line by line: never throws, never leaves the window', () => {
    const corpus = icsCorpus().filter((c) => !c.name.startsWith('pathological'));
    fc.assert(
      fc.property(
        fc.constantFrom(...corpus),
        fc.array(fc.record({ at: fc.nat(), op: fc.constantFrom('drop', 'dup', 'garble', 'swap') }), { maxLength: 6 }),
        (c, edits) => {
          const lines = c.ics.split(/\r?\n/);
          for (const { at, op } of edits) {
            if (lines.length === 0) break;
            const i = at % lines.length;
            if (op === 'drop') lines.splice(i, 1);
            else if (op === 'dup') lines.splice(i, 0, lines[i]);
            else if (op === 'garble') lines[i] = lines[i].replace(/[:;=]/g, '').slice(0, Math.max(1, lines[i].length >> 1));
            else lines.splice(i, 2, lines[i + 1] ?? '', lines[i]);
          }
          const windowStart = new Date(c.expected.window.start);
          const windowEnd = new Date(c.expected.window.end);
          const result = busyFromIcs(lines.join('\r\n'), { windowStart, windowEnd, zone: c.expected.zone });
          assert.ok(result.skipped <= result.events);
          for (const b of result.blocks) assert.ok(b.start >= windowStart && b.end <= windowEnd && b.start < b.end);
        },
      ),
      { numRuns: 300 },
    );
  });
});
