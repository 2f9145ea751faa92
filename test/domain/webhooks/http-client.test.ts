import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createDeliveryClient } from '../../../src/domain/webhooks/http-client.ts';
import { setResolver } from '../../../src/domain/webhooks/resolver.ts';
import type { HttpsReceiver } from '../../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../../helpers/https-receiver.ts';

let rx: HttpsReceiver;
before(async () => {
  rx = await startHttpsReceiver();
});
after(() => rx.close());
afterEach(() => setResolver(null));

const post = { body: '{}', headers: {} };

describe('delivery client', () => {
  it('connects only to an address it checked: a name that rebinds between the check and the connection is refused', async () => {
    let calls = 0;
    // public for the check before the request, loopback for the connection's own lookup
    setResolver(async () => (++calls === 1 ? ['93.184.216.34'] : ['127.0.0.1']));
    const client = createDeliveryClient({ allowPrivate: false, caFile: rx.caFile });
    const out = await client.send({ url: `https://rebind.example.com:${rx.port}/r`, ...post });
    await client.close();
    assert.equal(out.ok, false);
    assert.equal(calls, 2);
    assert.match(String(out.error), /resolves to 127\.0\.0\.1, which is a loopback address/);
    assert.equal(rx.on('/r').length, 0);
  });

  it('keeps connections alive per host, caps the body it reads and does not follow redirects', async () => {
    setResolver(async () => ['127.0.0.1']);
    rx.reply = (_r, path) =>
      path === '/big'
        ? { status: 500, body: 'x'.repeat(100_000) }
        : path === '/go'
          ? { status: 301, headers: { location: '/gone' } }
          : { status: 204 };
    const client = createDeliveryClient({ allowPrivate: true, caFile: rx.caFile });
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await client.send({ url: `https://localhost:${rx.port}/a`, ...post }));
    assert.ok(outcomes.every((o) => o.ok && o.responseStatus === 204));
    const ports = rx.on('/a').map((r) => r.remotePort);
    assert.ok(new Set(ports).size < ports.length, `connections are reused: ${ports.join(', ')}`);
    const big = await client.send({ url: `https://localhost:${rx.port}/big`, ...post });
    assert.equal(big.responseStatus, 500);
    assert.ok(String(big.error).length < 300);
    const moved = await client.send({ url: `https://localhost:${rx.port}/go`, ...post });
    assert.equal(moved.ok, false);
    assert.equal(moved.responseStatus, 301);
    assert.equal(rx.on('/gone').length, 0);
    await client.close();
  });

  it('an untrusted certificate is a failed attempt, not a crash', async () => {
    const client = createDeliveryClient({ allowPrivate: true });
    const out = await client.send({ url: `${rx.origin}/tls`, ...post });
    await client.close();
    assert.equal(out.ok, false);
    assert.match(String(out.error), /certificate|self.signed|CERT/i);
  });

  it('limits the whole attempt', async () => {
    rx.reply = () => ({ status: 200, hangMs: 3000 });
    const client = createDeliveryClient({ allowPrivate: true, caFile: rx.caFile, timeoutMs: 300 });
    const out = await client.send({ url: `${rx.origin}/slow`, ...post });
    await client.close();
    assert.equal(out.ok, false);
    assert.equal(out.error, 'timeout: no complete response within 0.3 s');
    assert.ok(out.durationMs >= 290 && out.durationMs < 1500, String(out.durationMs));
  });

  it('a name whose servers do not answer is recorded as dns, even when the process was too late for both deadlines', async () => {
    // The lookup never answers; once its deadline is armed, the process is held up past the
    // attempt's too (as a loaded machine may): the lookup's deadline comes first all the same.
    setResolver(() => {
      setImmediate(() => {
        const until = performance.now() + 1300;
        while (performance.now() < until);
      });
      return new Promise<string[]>(() => {});
    });
    const client = createDeliveryClient({ allowPrivate: false, timeoutMs: 1000 });
    const out = await client.send({ url: 'https://silent.example.com/hook', ...post });
    await client.close();
    assert.equal(out.ok, false);
    assert.match(String(out.error), /^dns: DNS lookup of silent\.example\.com did not complete within 500 ms/);
  });
});
