import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { freeBusySlots } from '../../../src/domain/availability/freebusy.ts';
import { mergeIntervals } from '../../../src/domain/availability/intervals.ts';

const MIN = 60_000;
const intervals = fc
  .array(fc.record({ s: fc.integer({ min: -60, max: 600 }), len: fc.integer({ min: 1, max: 180 }) }), { maxLength: 6 })
  .map((xs) => xs.map((x) => ({ start: x.s * MIN, end: (x.s + x.len) * MIN })));

it('free/busy tiles agree with a minute-by-minute oracle', () => {
  fc.assert(
    fc.property(
      intervals,
      intervals,
      intervals,
      fc.integer({ min: 15, max: 120 }),
      fc.integer({ min: 1, max: 540 }),
      (work, bookings, ooo, step, span) => {
        const to = span * MIN;
        const got = freeBusySlots(0, to, step * MIN, mergeIntervals(work), mergeIntervals(bookings), mergeIntervals(ooo));
        let start = 0;
        for (const tile of got) {
          assert.equal(tile.start, start);
          assert.equal(tile.end, Math.min(start + step * MIN, to));
          const minutes: number[] = [];
          for (let x = tile.start; x < tile.end; x += MIN) minutes.push(x);
          const inAny = (list: { start: number; end: number }[], x: number) => list.some((i) => x >= i.start && x < i.end);
          const expected = minutes.some((x) => inAny(bookings, x))
            ? 'booking'
            : minutes.some((x) => inAny(ooo, x))
              ? 'out_of_office'
              : minutes.every((x) => inAny(work, x))
                ? undefined
                : 'outside_working_hours';
          assert.equal(tile.reason, expected);
          assert.equal(tile.status, expected ? 'busy' : 'free');
          start = tile.end;
        }
        assert.equal(start, to);
      },
    ),
    { numRuns: 300 },
  );
});
