import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { decodeHolds } from '../../src/db/queries/busy.ts';
import { busyRecordHex } from '../domain/availability/scheduling-fixtures.ts';

// member_busy_days records reach busyOfMembers in whatever order the rows and the holds' writes
// left them; the engine takes them sorted by start (it joins them without sorting). Any order in
// gives the same holds out, sorted, each interval with its own booking start, and only those that
// overlap the window.
const MIN = 60_000;
const FROM = Date.parse('2027-03-01T00:00:00Z');

/** Disjoint holds (a member's active holds never overlap), from FROM - 6 h on. */
const holdsArb = (minLength: number) =>
  fc
    .array(
      fc.record({ gap: fc.integer({ min: 0, max: 60 }), len: fc.integer({ min: 5, max: 90 }), before: fc.integer({ min: 0, max: 4 }) }),
      { minLength, maxLength: 400 },
    )
    .map((list) => {
      let t = FROM - 6 * 60 * MIN;
      return list.map(({ gap, len, before }) => {
        const start = (t += gap * MIN);
        t += len * MIN;
        return { start, end: t, booking: start + Math.min(before, len - 1) * MIN };
      });
    });

const record = (h: { start: number; end: number; booking: number }) => busyRecordHex(h.start, h.end - h.start, h.booking - h.start);

function check(holds: { start: number; end: number; booking: number }[], order: number[], to: number) {
  const bytes = Buffer.from(order.map((i) => record(holds[i])).join(''), 'hex');
  const expected = holds.filter((h) => h.start < to && h.end > FROM);
  // alone, and into a part of an array shared with other members' records, which it leaves alone
  const shared = new Float64Array(holds.length * 3 + 9).fill(-1);
  for (const out of [decodeHolds(bytes, FROM, to), decodeHolds(bytes, FROM, to, shared, 6)]) {
    assert.deepEqual(
      Array.from(out.starts),
      expected.map((h) => h.start),
    );
    assert.deepEqual(
      Array.from(out.ends),
      expected.map((h) => h.end),
    );
    assert.deepEqual(
      Array.from(out.bookingStarts),
      expected.map((h) => h.booking),
    );
  }
  const outside = [...shared.subarray(0, 6), ...shared.subarray(6 + holds.length * 3)];
  assert.deepEqual(outside, [-1, -1, -1, -1, -1, -1, -1, -1, -1]);
}

it('gives the holds overlapping the window sorted by start, in step, from days in order with their records in any order', () => {
  fc.assert(
    fc.property(holdsArb(20), fc.integer({ min: 1, max: 10 * 1440 }), fc.integer(), (holds, span, seed) => {
      // days in order, a day's records shuffled (as holds made in any order append them)
      let x = seed >>> 0;
      const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
      const byDay = new Map<number, number[]>();
      holds.forEach((h, i) => {
        const day = Math.floor(h.booking / (1440 * MIN));
        byDay.set(day, [...(byDay.get(day) ?? []), i]);
      });
      const order = [...byDay.keys()].sort((a, b) => a - b).flatMap((d) => byDay.get(d)!.sort(() => (next() % 3) - 1));
      check(holds, order, FROM + span * MIN);
    }),
    { numRuns: 200 },
  );
});

it('the same from records in any order at all (reversed, shuffled), past its budget of moves', () => {
  // 120 records and more: reversed or shuffled, they need more moves than the budget allows
  fc.assert(
    fc.property(holdsArb(120), fc.integer({ min: 5 * 1440, max: 30 * 1440 }), fc.boolean(), fc.integer(), (holds, span, reversed, seed) => {
      let x = seed >>> 0;
      const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
      const order = holds.map((_, i) => i);
      if (reversed) order.reverse();
      else
        for (let i = order.length - 1; i > 0; i--) {
          const j = next() % (i + 1);
          [order[i], order[j]] = [order[j], order[i]];
        }
      check(holds, order, FROM + span * MIN);
    }),
    { numRuns: 200 },
  );
});
