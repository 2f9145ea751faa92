import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coalesce } from '../../src/lib/coalesce.ts';

const tick = () => new Promise((r) => setImmediate(r));

/** A run function that records its batches and finishes each when told. */
function recorder(fail: (keys: number[]) => boolean = () => false) {
  const batches: number[][] = [];
  const finish: (() => void)[] = [];
  const run = (keys: number[]) => {
    batches.push(keys);
    return new Promise<Map<number, string>>((resolve, reject) => {
      finish.push(() => (fail(keys) ? reject(new Error(`bad ${keys.join(',')}`)) : resolve(new Map(keys.map((k) => [k, `done ${k}`])))));
    });
  };
  return { batches, finish, run };
}

describe('coalesce', () => {
  it('a lone call runs at the next turn, alone', async () => {
    const r = recorder();
    const call = coalesce(r.run);
    const answer = call(1);
    await tick();
    assert.deepEqual(r.batches, [[1]]);
    r.finish[0]();
    assert.equal(await answer, 'done 1');
  });

  it('calls of one turn share a batch; calls made while it runs wait for the next', async () => {
    const r = recorder();
    const call = coalesce(r.run);
    const first = [call(1), call(2)];
    await tick();
    const second = [call(3), call(4), call(5)];
    await tick();
    assert.deepEqual(r.batches, [[1, 2]], 'one batch at a time');
    r.finish[0]();
    assert.deepEqual(await Promise.all(first), ['done 1', 'done 2']);
    await tick();
    assert.deepEqual(r.batches, [
      [1, 2],
      [3, 4, 5],
    ]);
    r.finish[1]();
    assert.deepEqual(await Promise.all(second), ['done 3', 'done 4', 'done 5']);
  });

  it('a batch takes at most maxBatch keys; the rest go into the next ones', async () => {
    const r = recorder();
    const call = coalesce(r.run, 2);
    const answers = [1, 2, 3, 4, 5].map((k) => call(k));
    for (let i = 0; i < 3; i++) {
      while (r.finish.length <= i) await tick();
      r.finish[i]();
    }
    assert.deepEqual(await Promise.all(answers), ['done 1', 'done 2', 'done 3', 'done 4', 'done 5']);
    assert.deepEqual(r.batches, [[1, 2], [3, 4], [5]]);
  });

  it('a failed batch runs each key alone, one after another, so only the bad key fails', async () => {
    const r = recorder((keys) => keys.includes(2));
    const call = coalesce(r.run);
    const answers = [1, 2, 3].map((k) =>
      call(k).then(
        (v) => v,
        (e: Error) => e.message,
      ),
    );
    await tick();
    r.finish[0]();
    for (let i = 1; i <= 3; i++) {
      while (r.finish.length <= i) await tick();
      await tick();
      assert.equal(r.batches.length, i + 1, 'the keys of a failed batch are retried one after another');
      r.finish[i]();
    }
    assert.deepEqual(await Promise.all(answers), ['done 1', 'bad 2', 'done 3']);
    assert.deepEqual(r.batches, [[1, 2, 3], [1], [2], [3]]);
  });

  it('a key the batch does not answer is an error for that key only', async () => {
    const call = coalesce(async (keys: number[]) => new Map(keys.filter((k) => k !== 2).map((k) => [k, k * 10])));
    const answers = await Promise.allSettled([call(1), call(2), call(3)]);
    assert.deepEqual(
      answers.map((a) => a.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
  });
});
