import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limit } from '../../src/lib/limit.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('limit', () => {
  it('runs at most n at once, the rest in the order they came, and a failure frees its slot', async () => {
    const run = limit(2);
    let active = 0;
    let most = 0;
    const started: number[] = [];
    const finish = new Map<number, (fail?: boolean) => void>();
    const task = (k: number) =>
      run(() => {
        active++;
        most = Math.max(most, active);
        started.push(k);
        return new Promise<number>((resolve, reject) =>
          finish.set(k, (fail) => {
            active--;
            if (fail) reject(new Error(`bad ${k}`));
            else resolve(k);
          }),
        );
      });
    const results = [1, 2, 3, 4, 5].map((k) =>
      task(k).then(
        (v) => v,
        (e: Error) => e.message,
      ),
    );
    await tick();
    assert.deepEqual(started, [1, 2]);
    finish.get(2)!(true);
    await tick();
    assert.deepEqual(started, [1, 2, 3], 'the failed call freed its slot for the next in line');
    // a caller arriving now waits behind those already waiting
    const late = task(6);
    finish.get(1)!();
    await tick();
    assert.deepEqual(started, [1, 2, 3, 4]);
    for (const k of [3, 4]) finish.get(k)!();
    await tick();
    assert.deepEqual(started, [1, 2, 3, 4, 5, 6]);
    for (const k of [5, 6]) finish.get(k)!();
    assert.deepEqual(await Promise.all(results), [1, 'bad 2', 3, 4, 5]);
    assert.equal(await late, 6);
    assert.equal(most, 2);
  });
});
