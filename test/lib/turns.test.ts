import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { it } from 'node:test';
import { mapInTurns } from '../../src/lib/turns.ts';

const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

it('gives way between items of CPU work: what waits runs before the next item, not after the last', async () => {
  const order: string[] = [];
  const result = mapInTurns([1, 2, 3, 4], (n) => {
    spin(15);
    order.push(`item ${n}`);
    return n * 2;
  });
  // queued while the first item runs, as a request arriving then would be
  setImmediate(() => order.push('waiting'));
  assert.deepEqual(await result, [2, 4, 6, 8]);
  // (a plain map would run it after 'item 4')
  assert.ok(order.indexOf('waiting') < order.indexOf('item 3'), order.join(', '));
});

it('does not give way after cheap items', async () => {
  const order: string[] = [];
  const result = mapInTurns([1, 2, 3], (n) => order.push(`item ${n}`), 1000);
  setImmediate(() => order.push('waiting'));
  await result;
  assert.deepEqual(order.slice(0, 3), ['item 1', 'item 2', 'item 3']);
});
