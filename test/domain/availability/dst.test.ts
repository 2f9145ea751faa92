import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DateTime } from 'luxon';
import type { HostInput } from '../../../src/domain/availability/engine.ts';
import { computeSlots } from '../../../src/domain/availability/engine.ts';
import { localDayOf } from '../../../src/domain/availability/zone-days.ts';

const ALL_DAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'];

function host(timezone: string, start: string, end: string, extra: Partial<HostInput> = {}): HostInput {
  return {
    id: 'h',
    timezone,
    workingHours: [{ days: ALL_DAYS, start, end }],
    maxBookingsPerDay: 10,
    busy: [],
    bookingStarts: [],
    ...extra,
  };
}

function slots(h: HostInput, from: string, to: string, duration = 60, slotInterval = duration) {
  const rules = { duration, slotInterval, bufferBefore: 0, bufferAfter: 0, from: Date.parse(from), to: Date.parse(to), earliest: 0 };
  return computeSlots([h], rules, false).map((s) => new Date(s.start).toISOString().slice(0, 16));
}

const local = (iso: string, zone: string) => DateTime.fromISO(`${iso}:00Z`).setZone(zone).toFormat('HH:mm');

describe('named DST cases', () => {
  it('America/New_York spring forward (8 Mar 2026): the working day loses its missing hour', () => {
    const got = slots(host('America/New_York', '00:00', '06:00'), '2026-03-08T00:00:00Z', '2026-03-08T12:00:00Z');
    assert.deepEqual(got, ['2026-03-08T05:00', '2026-03-08T06:00', '2026-03-08T07:00', '2026-03-08T08:00', '2026-03-08T09:00']);
    assert.deepEqual(
      got.map((s) => local(s, 'America/New_York')),
      ['00:00', '01:00', '03:00', '04:00', '05:00'],
    );
  });

  it('America/New_York: 09:00 is 14:00 UTC before the change and 13:00 UTC after', () => {
    const h = host('America/New_York', '09:00', '10:00');
    assert.deepEqual(slots(h, '2026-03-06T00:00:00Z', '2026-03-10T00:00:00Z'), [
      '2026-03-06T14:00',
      '2026-03-07T14:00',
      '2026-03-08T13:00',
      '2026-03-09T13:00',
    ]);
  });

  it('America/New_York fall back (1 Nov 2026): the repeated hour is worked twice', () => {
    const got = slots(host('America/New_York', '00:00', '06:00'), '2026-11-01T00:00:00Z', '2026-11-01T12:00:00Z');
    assert.equal(got.length, 7);
    assert.deepEqual(
      got.map((s) => local(s, 'America/New_York')),
      ['00:00', '01:00', '01:00', '02:00', '03:00', '04:00', '05:00'],
    );
  });

  it('America/New_York fall back: an ambiguous start takes its first occurrence', () => {
    assert.deepEqual(slots(host('America/New_York', '01:30', '03:00'), '2026-11-01T00:00:00Z', '2026-11-01T12:00:00Z', 30), [
      '2026-11-01T05:30',
      '2026-11-01T06:00',
      '2026-11-01T06:30',
      '2026-11-01T07:00',
      '2026-11-01T07:30',
    ]);
  });

  it('America/New_York spring forward: a start inside the gap moves forward by the gap', () => {
    assert.deepEqual(slots(host('America/New_York', '02:30', '04:00'), '2026-03-08T00:00:00Z', '2026-03-08T12:00:00Z', 30), [
      '2026-03-08T07:30', // 03:30 EDT
    ]);
  });

  it('Europe/London: 3 working hours on the spring day, 5 on the autumn day', () => {
    const h = host('Europe/London', '00:00', '04:00');
    assert.deepEqual(slots(h, '2026-03-29T00:00:00Z', '2026-03-29T12:00:00Z'), [
      '2026-03-29T00:00',
      '2026-03-29T01:00',
      '2026-03-29T02:00',
    ]);
    assert.deepEqual(slots(h, '2026-10-24T22:00:00Z', '2026-10-25T12:00:00Z'), [
      '2026-10-24T23:00',
      '2026-10-25T00:00',
      '2026-10-25T01:00',
      '2026-10-25T02:00',
      '2026-10-25T03:00',
    ]);
  });

  it('Australia/Lord_Howe: the 30-minute shift in both directions', () => {
    const h = host('Australia/Lord_Howe', '01:00', '04:00');
    // 4 Oct 2026: 02:00 (+10:30) becomes 02:30 (+11): 2.5 working hours.
    const spring = slots(h, '2026-10-03T12:00:00Z', '2026-10-03T20:00:00Z', 30);
    assert.deepEqual(spring, ['2026-10-03T14:30', '2026-10-03T15:00', '2026-10-03T15:30', '2026-10-03T16:00', '2026-10-03T16:30']);
    assert.deepEqual(
      spring.map((s) => local(s, 'Australia/Lord_Howe')),
      ['01:00', '01:30', '02:30', '03:00', '03:30'],
    );
    // 5 Apr 2026: 02:00 (+11) becomes 01:30 (+10:30): 3.5 working hours.
    const autumn = slots(h, '2026-04-04T12:00:00Z', '2026-04-04T20:00:00Z', 30);
    assert.equal(autumn.length, 7);
    assert.equal(autumn[0], '2026-04-04T14:00');
    assert.equal(autumn.at(-1), '2026-04-04T17:00');
  });

  it('a working day that crosses UTC midnight (Los Angeles 15:00–23:00) stays one local day', () => {
    const h = host('America/Los_Angeles', '15:00', '23:00');
    const got = slots(h, '2026-11-24T00:00:00Z', '2026-11-26T00:00:00Z');
    for (const s of got) assert.ok(local(s, 'America/Los_Angeles') >= '15:00' && local(s, 'America/Los_Angeles') <= '22:00', s);
    assert.equal(got.length, 7 + 8 + 1);
    assert.ok(got.includes('2026-11-24T23:00') && got.includes('2026-11-25T06:00'));
    // The daily cap counts the member's local day: a booking at 01:00 UTC on the 25th is Tuesday's.
    const capped = host('America/Los_Angeles', '15:00', '23:00', {
      maxBookingsPerDay: 1,
      bookingStarts: [Date.parse('2026-11-25T01:00:00Z')],
      busy: [{ starts: [Date.parse('2026-11-25T01:00:00Z')], ends: [Date.parse('2026-11-25T02:00:00Z')] }],
    });
    const left = slots(capped, '2026-11-24T00:00:00Z', '2026-11-26T00:00:00Z');
    assert.equal(left.filter((s) => s >= '2026-11-24T23:00' && s < '2026-11-25T07:00').length, 0, 'Tuesday is full');
    assert.equal(left.filter((s) => s < '2026-11-24T07:00').length, 7, 'Monday is untouched');
  });
});

describe('localDayOf: the day a daily cap counts in (booking holds, booked_slots)', () => {
  const day = (zone: string, iso: string) => {
    const d = localDayOf(zone, Date.parse(iso));
    return [new Date(d.from).toISOString(), new Date(d.to).toISOString()];
  };

  it('an ordinary day runs from local midnight to local midnight', () => {
    assert.deepEqual(day('America/New_York', '2026-11-24T15:00:00Z'), ['2026-11-24T05:00:00.000Z', '2026-11-25T05:00:00.000Z']);
  });

  it('America/Santiago skips midnight (6 Sep 2026): the day starts at 01:00 and ends at the next midnight, 23 h later', () => {
    // luxon's startOf('day').plus({ days: 1 }) ended it at 01:00 on 7 Sep, so a booking at
    // 00:30 on the 7th counted against the 6th's cap while availability counted it on the 7th.
    assert.deepEqual(day('America/Santiago', '2026-09-06T12:00:00Z'), ['2026-09-06T04:00:00.000Z', '2026-09-07T03:00:00.000Z']);
    assert.deepEqual(day('America/Santiago', '2026-09-07T03:30:00Z'), ['2026-09-07T03:00:00.000Z', '2026-09-08T03:00:00.000Z']);
  });

  it('America/Santiago repeats 23:00 (4 Apr 2026): a 25 h day', () => {
    assert.deepEqual(day('America/Santiago', '2026-04-05T03:30:00Z'), ['2026-04-04T03:00:00.000Z', '2026-04-05T04:00:00.000Z']);
  });

  it('agrees with the day boundaries the engine caps on', () => {
    const zone = 'America/Santiago';
    // cap 1, one booking at 00:30 local on 7 Sep: the 7th is full, the 6th is not
    const h = host(zone, '00:00', '24:00', { maxBookingsPerDay: 1, bookingStarts: [Date.parse('2026-09-07T03:30:00Z')] });
    const open = slots(h, '2026-09-06T04:00:00Z', '2026-09-08T03:00:00Z');
    const { from, to } = localDayOf(zone, Date.parse('2026-09-07T03:30:00Z'));
    assert.equal(open.filter((s) => Date.parse(`${s}:00Z`) >= from && Date.parse(`${s}:00Z`) < to).length, 0);
    assert.ok(open.includes('2026-09-06T12:00'));
  });
});
