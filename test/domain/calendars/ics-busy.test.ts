import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { busyFromIcs } from '../../../src/domain/calendars/ics/busy.ts';
import { syntheticCalendar } from '../../helpers/ics-synthetic.ts';

/** The reader's edges that the corpus does not show: its options, hostile zones, its caches. */

const windowStart = new Date('2026-03-01T00:00:00Z');
const windowEnd = new Date('2026-06-01T00:00:00Z');
const opts = { windowStart, windowEnd, zone: 'Europe/Berlin' };

const calendar = (...lines: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', ...lines, 'END:VCALENDAR', ''].join('\r\n');
const iso = (blocks: { start: Date; end: Date }[]) => blocks.map((b) => `${b.start.toISOString()}/${b.end.toISOString()}`);

describe('busyFromIcs options', () => {
  it('refuses a zone that is not an IANA zone, and a window that ends before it starts', () => {
    assert.throws(() => busyFromIcs('', { ...opts, zone: 'Mars/Olympus' }), RangeError);
    assert.throws(() => busyFromIcs('', { ...opts, zone: 'W. Europe Standard Time' }), RangeError);
    assert.throws(() => busyFromIcs('', { ...opts, windowEnd: windowStart }), RangeError);
    assert.throws(() => busyFromIcs('', { ...opts, windowStart: new Date('nope') }), RangeError);
  });

  it('reads empty text and a calendar without events as no events', () => {
    assert.deepEqual(busyFromIcs('', opts), { blocks: [], events: 0, skipped: 0, own: 0, skips: [] });
    assert.deepEqual(busyFromIcs(calendar('PRODID:-//x//y//EN'), opts), { blocks: [], events: 0, skipped: 0, own: 0, skips: [] });
  });
});

describe('busyFromIcs zones', () => {
  /** A VTIMEZONE whose observance repeats hourly from 1601: 3.7 million steps to expand. */
  const runaway = (tzid: string) => [
    'BEGIN:VTIMEZONE',
    `TZID:${tzid}`,
    'BEGIN:STANDARD',
    'DTSTART:16010101T000000',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0100',
    'RRULE:FREQ=HOURLY',
    'END:STANDARD',
    'END:VTIMEZONE',
  ];

  it('drops a VTIMEZONE that would take too long to expand, and falls back to its TZID as a zone name', () => {
    const started = performance.now();
    const event = (uid: string, tzid: string) => [
      'BEGIN:VEVENT',
      `UID:${uid}`,
      `DTSTART;TZID=${tzid}:20260401T100000`,
      'DURATION:PT1H',
      'END:VEVENT',
    ];
    const known = busyFromIcs(calendar(...runaway('Europe/Berlin'), ...event('a', 'Europe/Berlin')), opts);
    assert.deepEqual(iso(known.blocks), ['2026-04-01T08:00:00.000Z/2026-04-01T09:00:00.000Z']);
    const unknown = busyFromIcs(calendar(...runaway('Office zone'), ...event('b', 'Office zone')), opts);
    assert.deepEqual(unknown.skips, [{ uid: 'b', reason: 'unknown-timezone' }]);
    assert.ok(performance.now() - started < 10_000, 'the expansion was not cut short');
  });

  it('keeps every definition of a file in use, beyond the bound of the VTIMEZONE cache, on every call', () => {
    // 300 zones at whole-hour offsets from -12 to +12: "Zone 7" is UTC+7 (7 - 25 * 0).
    const offset = (n: number) => ((n + 12) % 25) - 12;
    const hhmm = (h: number) => `${h < 0 ? '-' : '+'}${String(Math.abs(h)).padStart(2, '0')}00`;
    const lines: string[] = [];
    for (let n = 0; n < 300; n++) {
      lines.push('BEGIN:VTIMEZONE', `TZID:Zone ${n}`, 'BEGIN:STANDARD', 'DTSTART:19700101T000000');
      lines.push(`TZOFFSETFROM:${hhmm(offset(n))}`, `TZOFFSETTO:${hhmm(offset(n))}`, 'END:STANDARD', 'END:VTIMEZONE');
      lines.push('BEGIN:VEVENT', `UID:z${n}`, `DTSTART;TZID=Zone ${n}:20260401T120000`, 'DURATION:PT1H', 'END:VEVENT');
    }
    for (let pass = 0; pass < 2; pass++) {
      const result = busyFromIcs(calendar(...lines), opts);
      assert.equal(result.skipped, 0);
      const byUid = new Map(result.blocks.map((b) => [b.uid, b.start.getTime()]));
      for (let n = 0; n < 300; n++) assert.equal(byUid.get(`z${n}`), Date.UTC(2026, 3, 1, 12 - offset(n)), `Zone ${n}, pass ${pass}`);
    }
  });

  it('reads the same TZID differently in two files when their VTIMEZONEs differ', () => {
    const file = (offset: string) =>
      calendar(
        'BEGIN:VTIMEZONE',
        'TZID:Customized Time Zone',
        'BEGIN:STANDARD',
        'DTSTART:19700101T000000',
        `TZOFFSETFROM:${offset}`,
        `TZOFFSETTO:${offset}`,
        'END:STANDARD',
        'END:VTIMEZONE',
        'BEGIN:VEVENT',
        'UID:c',
        'DTSTART;TZID=Customized Time Zone:20260401T120000',
        'DURATION:PT1H',
        'END:VEVENT',
      );
    assert.equal(busyFromIcs(file('+0300'), opts).blocks[0].start.toISOString(), '2026-04-01T09:00:00.000Z');
    assert.equal(busyFromIcs(file('-0300'), opts).blocks[0].start.toISOString(), '2026-04-01T15:00:00.000Z');
  });
});

describe('busyFromIcs events', () => {
  it("skips a whole event as the organization's own when its UID is one of ownUids", () => {
    const series = calendar(
      'BEGIN:VEVENT',
      'UID:bkg_0123456789abcdef01234567@booking-service',
      'DTSTART:20260401T100000Z',
      'DURATION:PT1H',
      'RRULE:FREQ=DAILY;COUNT=3',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:bkg_0123456789abcdef01234567@booking-service',
      'RECURRENCE-ID:20260402T100000Z',
      'DTSTART:20260402T120000Z',
      'DURATION:PT1H',
      'X-BOOKING-ID:bkg_0123456789abcdef01234567',
      'END:VEVENT',
    );
    const own = busyFromIcs(series, { ...opts, ownUids: new Set(['bkg_0123456789abcdef01234567@booking-service']) });
    assert.deepEqual(
      { blocks: own.blocks.length, events: own.events, own: own.own, skipped: own.skipped },
      { blocks: 0, events: 1, own: 1, skipped: 0 },
    );
    // the same event when the organization has no such booking (another installation's): busy
    const foreign = busyFromIcs(series, opts);
    assert.deepEqual(
      { blocks: foreign.blocks.length, events: foreign.events, own: foreign.own, skipped: foreign.skipped },
      { blocks: 3, events: 1, own: 0, skipped: 0 },
    );
  });

  it('counts an event carrying X-BOOKING-ID as any other when its UID is not among ownUids', () => {
    const result = busyFromIcs(
      calendar('BEGIN:VEVENT', 'UID:crm-1', 'DTSTART:20260401T100000Z', 'DURATION:PT1H', 'X-BOOKING-ID:12345', 'END:VEVENT'),
      { ...opts, ownUids: new Set(['bkg_0123456789abcdef01234567@booking-service']) },
    );
    assert.deepEqual(iso(result.blocks), ['2026-04-01T10:00:00.000Z/2026-04-01T11:00:00.000Z']);
    assert.equal(result.own, 0);
  });

  it('counts what it can read of an event whose override is broken, and counts the event as skipped', () => {
    const result = busyFromIcs(
      calendar(
        'BEGIN:VEVENT',
        'UID:half',
        'DTSTART:20260401T100000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=DAILY;COUNT=2',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:half',
        'RECURRENCE-ID:20260402T100000Z',
        'DTSTART;TZID=Nowhere/Land:20260402T120000',
        'END:VEVENT',
      ),
      opts,
    );
    assert.deepEqual(iso(result.blocks), [
      '2026-04-01T10:00:00.000Z/2026-04-01T11:00:00.000Z',
      '2026-04-02T10:00:00.000Z/2026-04-02T11:00:00.000Z',
    ]);
    assert.deepEqual(result.skips, [{ uid: 'half', reason: 'unknown-timezone' }]);
  });

  it('loses only the event with a lost END line, not the events after it', () => {
    const result = busyFromIcs(
      calendar(
        'BEGIN:VEVENT',
        'UID:no-end-alarm',
        'DTSTART:20260401T100000Z',
        'DURATION:PT1H',
        'BEGIN:VALARM',
        'TRIGGER:-PT5M',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:no-end',
        'DTSTART:20260402T100000Z',
        'DURATION:PT1H',
        'BEGIN:VEVENT',
        'UID:fine',
        'DTSTART:20260403T100000Z',
        'DURATION:PT1H',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:truncated',
        'DTSTART:20260404T100000Z',
      ),
      opts,
    );
    assert.deepEqual(iso(result.blocks), ['2026-04-03T10:00:00.000Z/2026-04-03T11:00:00.000Z']);
    assert.equal(result.events, 4);
    assert.deepEqual(result.skips.map((k) => k.uid).sort(), ['no-end', 'no-end-alarm', 'truncated']);
  });

  it('moves instances from before the window into it when a THISANDFUTURE override shifts them later', () => {
    const result = busyFromIcs(
      calendar(
        'BEGIN:VEVENT',
        'UID:t',
        'DTSTART:20250106T100000Z',
        'DURATION:PT1H',
        'RRULE:FREQ=WEEKLY',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:t',
        'RECURRENCE-ID;RANGE=THISANDFUTURE:20250602T100000Z',
        'DTSTART:20250702T100000Z',
        'DURATION:PT1H',
        'END:VEVENT',
      ),
      { ...opts, windowEnd: new Date('2026-03-15T00:00:00Z') },
    );
    // Mondays from 2 June 2025 on moved 30 days later: 2 and 9 February 2026 land on 4 and 11 March.
    assert.deepEqual(iso(result.blocks), [
      '2026-03-04T10:00:00.000Z/2026-03-04T11:00:00.000Z',
      '2026-03-11T10:00:00.000Z/2026-03-11T11:00:00.000Z',
    ]);
  });

  it('skips a rule with BYWEEKNO, which ical.js expands wrongly, and counts it', () => {
    const rule = 'RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO';
    const result = busyFromIcs(calendar('BEGIN:VEVENT', 'UID:wk', 'DTSTART:20260511T100000Z', 'DURATION:PT1H', rule, 'END:VEVENT'), opts);
    assert.deepEqual(result.blocks, []);
    assert.deepEqual(result.skips, [{ uid: 'wk', reason: 'unsupported-rule' }]);
  });

  it('reads every resource of the synthetic load calendar', () => {
    for (const r of syntheticCalendar(60, { around: windowStart, seed: 3 })) {
      const result = busyFromIcs(r.ics, opts);
      assert.deepEqual({ events: result.events, skipped: result.skipped }, { events: 1, skipped: 0 }, r.uid);
    }
  });
});
