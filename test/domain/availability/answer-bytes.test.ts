import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerBytes } from '../../../src/domain/availability/get-availability.ts';

// GET /availability's body is copied from each slot's remembered bytes; it must read exactly as
// JSON.stringify would write the same answer.
const MINUTE = 60_000;
const expected = (starts: readonly number[], minutes: number, first: number) =>
  JSON.stringify({
    success: true,
    slots: starts.slice(first).map((s) => ({ start: new Date(s).toISOString(), end: new Date(s + minutes * MINUTE).toISOString() })),
    totalSlots: starts.length - first,
  });

describe('availability body bytes', () => {
  const base = Date.parse('2026-12-31T22:00:00Z');
  // across midnight and the new year, in 15-minute steps, with a second's and a millisecond's offset
  const starts = [base, base + 15 * MINUTE, base + 2 * 60 * MINUTE, base + 26 * 60 * MINUTE + 1_001, base + 40 * 60 * MINUTE + 7];

  it('lists the slots from the first one after the cut, as JSON.stringify writes them', () => {
    for (const first of [0, 1, 3, starts.length - 1]) {
      assert.equal(answerBytes(starts, 30, first).toString(), expected(starts, 30, first), `from slot ${first}`);
    }
  });

  it('is an empty list when nothing is left, or nothing was found', () => {
    assert.equal(answerBytes(starts, 30, starts.length).toString(), '{"success":true,"slots":[],"totalSlots":0}');
    assert.equal(answerBytes([], 45, 0).toString(), '{"success":true,"slots":[],"totalSlots":0}');
  });

  it('keeps one slot apart per duration, and stays right after its memo fills and starts again', () => {
    assert.equal(answerBytes(starts, 60, 0).toString(), expected(starts, 60, 0));
    assert.equal(answerBytes(starts, 30, 0).toString(), expected(starts, 30, 0));
    // more slots than the memo keeps (about 20,000): it empties itself midway
    const many = Array.from({ length: 25_000 }, (_, i) => Date.parse('2027-01-01T00:00:00Z') + i * MINUTE);
    assert.equal(answerBytes(many, 10, 0).toString(), expected(many, 10, 0));
    assert.equal(answerBytes(starts, 30, 2).toString(), expected(starts, 30, 2));
    // more days than it keeps (400), a slot each
    const daily = Array.from({ length: 1_000 }, (_, i) => Date.parse('2027-01-01T09:00:00Z') + i * 1440 * MINUTE);
    assert.equal(answerBytes(daily, 30, 0).toString(), expected(daily, 30, 0));
    assert.equal(answerBytes(daily, 30, 990).toString(), expected(daily, 30, 990));
  });
});
