import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseDate, parseDateOrDateTime, parseDateTime } from '../../src/lib/dates.ts';

describe('the one date parser', () => {
  it('reads real dates and date-times with offsets', () => {
    assert.equal(parseDate('2026-12-01'), Date.UTC(2026, 11, 1));
    assert.equal(parseDate('2028-02-29'), Date.UTC(2028, 1, 29));
    assert.equal(parseDate('2000-02-29'), Date.UTC(2000, 1, 29));
    assert.equal(parseDateTime('2026-12-01T09:00:00Z'), Date.UTC(2026, 11, 1, 9));
    assert.equal(parseDateTime('2026-12-01t09:00:00z'), Date.UTC(2026, 11, 1, 9));
    assert.equal(parseDateTime('2026-12-01T10:30+01:30'), Date.UTC(2026, 11, 1, 9));
    assert.equal(parseDateTime('2026-12-01T00:00:00.5-02:00'), Date.UTC(2026, 11, 1, 2, 0, 0, 500));
    assert.equal(parseDateTime('2026-12-01T00:00:00.123456789Z'), Date.UTC(2026, 11, 1, 0, 0, 0, 123));
    assert.equal(parseDateOrDateTime('2026-12-01'), Date.UTC(2026, 11, 1));
    assert.equal(parseDateOrDateTime('2026-12-01T01:00:00Z'), Date.UTC(2026, 11, 1, 1));
  });

  it('refuses impossible and malformed values that Date.parse would accept or roll over', () => {
    for (const bad of ['2026-11-31', '2026-02-29', '1900-02-29', '2026-13-01', '2026-00-10', '2026-01-00', '2026-1-1', '26-01-01', '']) {
      assert.equal(parseDate(bad), undefined, bad);
    }
    for (const bad of [
      '2026-11-31T00:00:00Z',
      '2026-02-29T10:00:00Z',
      '2026-12-01T24:00:00Z',
      '2026-12-01T23:60:00Z',
      '2026-12-01T23:59:60Z',
      '2026-12-01T09:00:00',
      '2026-12-01 09:00:00Z',
      '2026-12-01T09:00:00+24:00',
      '2026-12-01T09:00:00+01:60',
      '2026-12-01',
      'Tue, 01 Dec 2026 09:00:00 GMT',
      '2026-12-01T09:00:00.Z',
      '2026-12-01T09:00:00.1234567890Z',
      '１２０２６-12-01T09:00:00Z',
    ]) {
      assert.equal(parseDateTime(bad), undefined, bad);
    }
  });

  it('agrees with toISOString on every instant of years 1..9998', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9998-12-31T23:59:59.999Z'), noInvalidDate: true }),
        (d) => {
          const iso = d.toISOString();
          assert.equal(parseDateTime(iso), d.getTime(), iso);
          assert.equal(parseDate(iso.slice(0, 10)), Date.parse(`${iso.slice(0, 10)}T00:00:00Z`));
        },
      ),
    );
  });

  it('refuses instants outside years 0001..9998 in UTC, whose days around them PostgreSQL could not take', () => {
    assert.equal(parseDate('0001-01-01'), Date.parse('0001-01-01T00:00:00Z'));
    assert.equal(parseDate('9998-12-31'), Date.parse('9998-12-31T00:00:00Z'));
    assert.equal(parseDateTime('9998-12-31T23:59:59.999Z'), Date.parse('9998-12-31T23:59:59.999Z'));
    for (const bad of ['0000-12-31', '9999-01-01', '9999-12-31']) assert.equal(parseDate(bad), undefined, bad);
    for (const bad of [
      '9999-01-01T00:00:00Z',
      '9999-12-30T10:00:00Z',
      '9998-12-31T23:00:00-05:00',
      '0001-01-01T00:30:00+01:00',
      '0000-06-01T00:00:00Z',
    ]) {
      assert.equal(parseDateTime(bad), undefined, bad);
    }
  });

  it('a day past the end of its month is refused in every month of every year', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9998 }), fc.integer({ min: 1, max: 12 }), (year, month) => {
        const last = new Date(Date.UTC(2000, month, 0)).getUTCDate(); // days in `month` of a leap year
        const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
        const days = month === 2 && !leap ? 28 : last;
        const ymd = (d: number) => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
        assert.notEqual(parseDate(ymd(days)), undefined);
        assert.equal(parseDate(ymd(days + 1)), undefined);
        assert.equal(parseDateTime(`${ymd(days + 1)}T00:00:00Z`), undefined);
      }),
    );
  });
});
