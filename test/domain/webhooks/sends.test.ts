import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createSends } from '../../../src/domain/webhooks/sends.ts';

const log = pino({ level: 'silent' });
const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};
const tick = () => new Promise((r) => setImmediate(r));

describe("a worker process's webhook sends in flight", () => {
  it('a job opens its attempts only once it has a place, so a send starts as soon as its attempt is open', async () => {
    const sends = createSends(1, log);
    const first = deferred();
    const opened: string[] = [];
    await sends.openAndSend(
      async () => (opened.push('a'), ['a']),
      () => first.promise,
    );
    let secondDone = false;
    const second = sends
      .openAndSend(
        async () => (opened.push('b'), ['b']),
        async () => {},
      )
      .then(() => (secondDone = true));
    await tick();
    assert.deepEqual(opened, ['a'], 'the second attempt is not opened while the first send holds the only place');
    assert.equal(secondDone, false);
    first.resolve();
    await second;
    assert.deepEqual(opened, ['a', 'b']);
    await sends.drain();
    assert.equal(sends.inFlight, 0);
  });

  it("a fan-out's other subscribers start with the first, over the limit, and give their places back", async () => {
    const sends = createSends(1, log);
    const gate = deferred();
    const started: string[] = [];
    assert.equal(
      await sends.openAndSend(
        async () => ['a', 'b', 'c'],
        async (x) => {
          started.push(x);
          await gate.promise;
        },
      ),
      3,
    );
    assert.deepEqual(started, ['a', 'b', 'c']);
    assert.equal(sends.inFlight, 3);
    gate.resolve();
    await sends.drain();
    assert.equal(sends.inFlight, 0);
  });

  it('a place is given back when opening fails or opens nothing; a failed record is logged, not thrown', async () => {
    const sends = createSends(1, log);
    await assert.rejects(
      sends.openAndSend(
        async () => {
          throw new Error('database away');
        },
        async () => {},
      ),
      /database away/,
    );
    assert.equal(
      await sends.openAndSend(
        async () => [],
        async () => {},
      ),
      0,
    );
    assert.equal(sends.inFlight, 0);
    await sends.openAndSend(
      async () => ['a'],
      async () => {
        throw new Error('record failed');
      },
    );
    await sends.drain();
    assert.equal(sends.inFlight, 0);
  });

  it('a send that throws before its first await gives its place back, and the others still run', async () => {
    const sends = createSends(2, log);
    const ran: number[] = [];
    await sends.openAndSend(
      async () => [1, 2, 3],
      (x) => {
        if (x === 1) throw new Error('thrown at once');
        ran.push(x);
        return Promise.resolve();
      },
    );
    await sends.drain();
    assert.deepEqual(ran, [2, 3]);
    assert.equal(sends.inFlight, 0);
    assert.equal(
      await sends.openAndSend(
        async () => ['next'],
        async () => {},
      ),
      1,
      'a later job gets a place',
    );
  });

  it('drain waits for a job still opening its attempts, and for the send it then starts', async () => {
    const sends = createSends(4, log);
    const opening = deferred();
    let sent = false;
    const job = sends.openAndSend(
      async () => {
        await opening.promise;
        return ['a'];
      },
      async () => {
        sent = true;
      },
    );
    let drained = false;
    const draining = sends.drain().then(() => (drained = true));
    await tick();
    assert.equal(drained, false, 'a place is held while the attempt opens');
    opening.resolve();
    await job;
    await draining;
    assert.equal(sent, true);
  });
});
