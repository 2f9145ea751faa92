import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { setResolver } from '../../src/domain/webhooks/resolver.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { recordBookingEvent, until } from '../helpers/webhook-events.ts';

const PUBLIC_V4 = '93.184.216.34';
const DNS: Record<string, string[]> = {
  'hooks.example.com': [PUBLIC_V4],
  'v6.example.com': ['2606:4700::1111'],
  'private.example.com': ['10.1.2.3'],
  'mixed.example.com': [PUBLIC_V4, '127.0.0.1'],
  'mapped.example.com': ['::ffff:192.168.0.1'],
  'metadata.example.com': ['169.254.169.254'],
};

let t: TestApp;
let rx: HttpsReceiver;
let rebindTo: string[] = [PUBLIC_V4];

before(async () => {
  rx = await startHttpsReceiver();
  setResolver(async (host) => {
    if (host === 'rebind.example.com') return rebindTo;
    const found = DNS[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  });
  t = await startApp({
    worker: true,
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_CA_FILE: rx.caFile, WEBHOOK_RETRY_SCHEDULE: '0' },
  });
});
after(async () => {
  setResolver(null);
  await t.close();
  await rx.close();
});

const REFUSED = [
  'https://localhost/hook',
  'https://localhost./hook',
  'https://LOCALHOST:8443/hook',
  'https://api.localhost/hook',
  'https://127.0.0.1/hook',
  'https://127.0.0.1./hook',
  'https://127.1/hook',
  'https://2130706433/hook',
  'https://0x7f.1/hook',
  'https://0x7f000001/hook',
  'https://017700000001/hook',
  'https://0177.0.0.1/hook',
  'https://[::1]/hook',
  'https://[0:0:0:0:0:0:0:1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://10.0.0.1/hook',
  'https://172.16.5.4/hook',
  'https://172.31.255.255/hook',
  'https://192.168.1.1/hook',
  'https://[::ffff:10.0.0.1]/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://[fe80::1]/hook',
  'https://0.0.0.0/hook',
  'https://0/hook',
  'https://[::]/hook',
  'https://100.64.0.1/hook',
  'https://100.127.255.254/hook',
  'https://224.0.0.1/hook',
  'https://239.255.255.250/hook',
  'https://[ff02::1]/hook',
  'https://[fc00::1]/hook',
  'https://[fd12:3456::1]/hook',
  'https://255.255.255.255/hook',
  'https://intranet/hook',
  'https://private.example.com/hook',
  'https://private.example.com./hook',
  'https://mixed.example.com/hook',
  'https://mapped.example.com/hook',
  'https://metadata.example.com/hook',
  'http://hooks.example.com/hook',
  'https://user:pw@hooks.example.com/hook',
  'https://user@hooks.example.com/hook',
];

describe('URL rules with WEBHOOK_ALLOW_PRIVATE_TARGETS off', () => {
  it('refuses every spelling of a private, loopback, link-local, unspecified, CGNAT, multicast or unique-local target', async () => {
    const ok = await t.request('POST', '/v1/webhooks', {
      key: KEYS.secret,
      body: { url: 'https://hooks.example.com/hook', events: ['BOOKING_CREATED'] },
    });
    assert.equal(ok.status, 201, ok.text);
    for (const url of REFUSED) {
      const res = await t.request('POST', '/v1/webhooks', { key: KEYS.secret, body: { url, events: ['BOOKING_CREATED'] } });
      assert.equal(res.status, 400, `${url} was accepted`);
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.field, 'url', url);
      const patch = await t.request('PATCH', `/v1/webhooks/${ok.body.webhook.id}`, { key: KEYS.secret, body: { url } });
      assert.equal(patch.status, 400, `PATCH ${url} was accepted`);
      assert.equal(patch.body.error.field, 'url');
    }
    const after = await t.request('GET', `/v1/webhooks/${ok.body.webhook.id}`, { key: KEYS.secret });
    assert.equal(after.body.webhook.url, 'https://hooks.example.com/hook', 'refused updates changed nothing');
  });

  it('accepts public addresses and names that resolve only to them', async () => {
    for (const url of [
      'https://hooks.example.com/x',
      'https://hooks.example.com./x',
      `https://${PUBLIC_V4}:8443/x`,
      'https://[2606:4700::1111]/x',
      'https://v6.example.com/x',
      // a name that does not resolve (yet, or on a machine without outside DNS) targets no private address
      'https://nxdomain.example.com/x',
    ]) {
      const res = await t.request('POST', '/v1/webhooks', { key: KEYS.live, body: { url, events: ['BOOKING_CREATED'] } });
      assert.equal(res.status, 201, `${url}: ${res.text}`);
    }
  });
});

describe('delivery checks the address again at every attempt', () => {
  afterEach(() => {
    rebindTo = [PUBLIC_V4];
  });

  it('refuses a host name that resolves to 127.0.0.1 at delivery even though it passed at create', async () => {
    rebindTo = [PUBLIC_V4];
    const res = await t.request('POST', '/v1/webhooks', {
      key: KEYS.secret,
      body: { url: `https://rebind.example.com:${rx.port}/rebind`, events: ['BOOKING_COMPLETED'] },
    });
    assert.equal(res.status, 201, res.text);
    rebindTo = ['127.0.0.1'];
    await recordBookingEvent(t.db.pool, 'BOOKING_COMPLETED');
    const page = await until(
      async () => {
        const h = await t.request('GET', `/v1/webhooks/${res.body.webhook.id}/deliveries`, { key: KEYS.secret });
        return h.body.deliveries.length > 0 && h.body.deliveries[0].status === 'failed' && h.body;
      },
      10_000,
      'the refused attempt',
    );
    assert.match(page.deliveries[0].error, /refused: .*127\.0\.0\.1.*loopback/);
    assert.equal(page.deliveries[0].response_status, null);
    assert.equal(rx.on('/rebind').length, 0, 'the private address was never called');
  });

  it('fails the attempts to a name that does not resolve, without a connection', async () => {
    const res = await t.request('POST', '/v1/webhooks', {
      key: KEYS.secret,
      body: { url: 'https://nxdomain.example.com/gone', events: ['BOOKING_NO_SHOW'] },
    });
    assert.equal(res.status, 201, res.text);
    await recordBookingEvent(t.db.pool, 'BOOKING_NO_SHOW');
    const page = await until(
      async () => {
        const h = await t.request('GET', `/v1/webhooks/${res.body.webhook.id}/deliveries`, { key: KEYS.secret });
        return h.body.deliveries.length > 0 && h.body.deliveries[0].status === 'failed' && h.body;
      },
      10_000,
      'the failed attempt',
    );
    assert.match(page.deliveries[0].error, /does not resolve/);
    await t.request('DELETE', `/v1/webhooks/${res.body.webhook.id}`, { key: KEYS.secret });
  });

  it('re-enabling applies the URL rules again, to the stored URL as well', async () => {
    const res = await t.request('POST', '/v1/webhooks', {
      key: KEYS.secret,
      body: { url: 'https://hooks.example.com/again', events: ['BOOKING_NO_SHOW'] },
    });
    const id = res.body.webhook.id;
    // saved while the rules were lifted, then disabled
    await t.db.pool.query('update webhooks set url = $2, is_active = false where id = $1', [id, `${rx.origin}/again`]);
    const refused = await t.request('PATCH', `/v1/webhooks/${id}`, { key: KEYS.secret, body: { is_active: true } });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.type, 'invalid_request_error');
    assert.match(refused.body.error.message, /loopback/);
    assert.equal((await t.request('GET', `/v1/webhooks/${id}`, { key: KEYS.secret })).body.webhook.is_active, false);
    // with a URL that passes, it is re-enabled
    const fixed = await t.request('PATCH', `/v1/webhooks/${id}`, {
      key: KEYS.secret,
      body: { is_active: true, url: 'https://hooks.example.com/again' },
    });
    assert.equal(fixed.status, 200, fixed.text);
    assert.equal(fixed.body.webhook.is_active, true);
    // other changes to a webhook whose stored URL broke the rules are not blocked by it
    await t.db.pool.query('update webhooks set url = $2 where id = $1', [id, `${rx.origin}/again`]);
    assert.equal(
      (await t.request('PATCH', `/v1/webhooks/${id}`, { key: KEYS.secret, body: { description: 'still editable' } })).status,
      200,
    );
  });

  it('refuses a stored literal private address at delivery', async () => {
    const res = await t.request('POST', '/v1/webhooks', {
      key: KEYS.secret,
      body: { url: `https://hooks.example.com/literal`, events: ['BOOKING_NO_SHOW'] },
    });
    // as if it had been saved while the rules were lifted
    await t.db.pool.query('update webhooks set url = $2 where id = $1', [res.body.webhook.id, `${rx.origin}/literal`]);
    await recordBookingEvent(t.db.pool, 'BOOKING_NO_SHOW');
    const page = await until(
      async () => {
        const h = await t.request('GET', `/v1/webhooks/${res.body.webhook.id}/deliveries`, { key: KEYS.secret });
        return h.body.deliveries.length > 0 && h.body.deliveries[0].status === 'failed' && h.body;
      },
      10_000,
      'the refused attempt',
    );
    assert.match(page.deliveries[0].error, /refused: 127\.0\.0\.1 is a loopback address/);
    assert.equal(rx.on('/literal').length, 0);
  });
});
