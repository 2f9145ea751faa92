import assert from 'node:assert/strict';
import { it } from 'node:test';
import { firstIndexFrom } from '../../../src/domain/availability/intervals.ts';

it('firstIndexFrom finds the first value at or after t, or strictly after it, in ascending values', () => {
  const values = [10, 20, 20, 30];
  assert.deepEqual(
    [5, 10, 15, 20, 25, 30, 35].map((t) => firstIndexFrom(values, t)),
    [0, 0, 1, 1, 3, 3, 4],
  );
  assert.deepEqual(
    [5, 10, 15, 20, 25, 30, 35].map((t) => firstIndexFrom(values, t, true)),
    [0, 1, 1, 3, 3, 4, 4],
  );
  assert.equal(firstIndexFrom(new Float64Array(0), 1), 0);
  assert.equal(firstIndexFrom(Float64Array.of(1, 2, 3), 2, true), 2);
});
