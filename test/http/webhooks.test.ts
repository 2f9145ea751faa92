import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, testSeed } from '../helpers/fixtures.ts';

const READER = 'sk_test_northwind_webhooks_readonly_0001';
const URL_OK = 'https://127.0.0.1:9/hooks';

let t: TestApp;

before(async () => {
  const seed = testSeed();
  seed.organizations[0].api_keys.push({ key: READER, name: 'Webhooks reader', scopes: ['webhooks:read'] });
  t = await startApp({ seed });
});
after(() => t.close());

async function create(body: Record<string, unknown> = {}, key: string = KEYS.secret) {
  return t.request('POST', '/v1/webhooks', { key, body: { url: URL_OK, events: ['BOOKING_CREATED'], description: 'CRM sync', ...body } });
}

async function created(body: Record<string, unknown> = {}, key: string = KEYS.secret) {
  const res = await create(body, key);
  assert.equal(res.status, 201, res.text);
  return res.body.webhook;
}

describe('POST /webhooks', () => {
  it('creates a subscription and shows its secret this once', async () => {
    const res = await create({ events: ['BOOKING_CANCELLED', 'BOOKING_CREATED', 'BOOKING_CREATED'] });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    const w = res.body.webhook;
    assert.match(w.id, /^wh_[0-9a-f]{24}$/);
    assert.equal(w.url, URL_OK);
    assert.deepEqual(w.events, ['BOOKING_CREATED', 'BOOKING_CANCELLED'], 'known order, duplicates dropped');
    assert.equal(w.description, 'CRM sync');
    assert.equal(w.is_active, true);
    assert.equal(w.failure_reason, null);
    assert.equal(w.rotated_at, null);
    assert.equal(w.livemode, false);
    assert.match(w.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(w.secret.slice(6), 'base64').length, 32);

    const stored = await t.db.pool.query('select * from webhooks where id = $1', [w.id]);
    assert.ok(!JSON.stringify(stored.rows[0]).includes(w.secret.slice(6)), 'the database does not hold the secret in plain text');
    const read = await t.request('GET', `/v1/webhooks/${w.id}`, { key: KEYS.secret });
    assert.equal(read.status, 200);
    assert.equal(read.body.webhook.secret, undefined);
    assert.deepEqual(read.body.webhook, (({ secret: _s, ...rest }) => rest)(w));
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ events: [] }, 'events'],
      [{ events: ['BOOKING_EXPLODED'] }, 'events'],
      [{ events: undefined }, 'events'],
      [{ url: undefined }, 'url'],
      [{ url: 'http://example.com/hook' }, 'url'],
      [{ url: 'ftp://example.com/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'https://user:pass@example.com/hook' }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2100)}` }, 'url'],
      [{ description: 'x'.repeat(501) }, 'description'],
      // JSON has real types: nothing is coerced (the server's Ajv would turn 5 into "5").
      [{ description: 5 }, 'description'],
      [{ description: true }, 'description'],
      [{ description: ['x'] }, 'description'],
      [{ url: 5 }, 'url'],
      [{ events: 'BOOKING_CREATED' }, 'events'],
      [{ events: [5] }, 'events'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.field, field, res.text);
      assert.match(res.body.error.message, new RegExp(field));
    }
  });

  it('keeps at most 50 webhooks per organization and mode', async () => {
    const live = await t.request('GET', '/v1/webhooks', { key: KEYS.live });
    for (let i = live.body.webhooks.length; i < 50; i++) await created({}, KEYS.live);
    const res = await create({}, KEYS.live);
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'precondition_failed');
    await created({}, KEYS.other);
    for (const w of (await t.request('GET', '/v1/webhooks', { key: KEYS.live })).body.webhooks) {
      await t.request('DELETE', `/v1/webhooks/${w.id}`, { key: KEYS.live });
    }
  });
});

describe('reading, updating and deleting', () => {
  it("lists only the key's organization and mode, never a secret", async () => {
    const mine = await created();
    const live = await created({}, KEYS.live);
    const other = await created({}, KEYS.other);
    const list = await t.request('GET', '/v1/webhooks', { key: KEYS.secret });
    assert.equal(list.status, 200);
    const ids = list.body.webhooks.map((w: { id: string }) => w.id);
    assert.ok(ids.includes(mine.id));
    assert.ok(!ids.includes(live.id) && !ids.includes(other.id));
    assert.ok(list.body.webhooks.every((w: object) => !('secret' in w)));
    const liveList = await t.request('GET', '/v1/webhooks', { key: KEYS.live });
    assert.deepEqual(
      liveList.body.webhooks.map((w: { id: string }) => w.id),
      [live.id],
    );
    assert.equal(liveList.body.webhooks[0].livemode, true);
  });

  it("another organization's or mode's webhook is 404 on every route", async () => {
    const w = await created();
    for (const key of [KEYS.other, KEYS.live]) {
      for (const [method, path, body] of [
        ['GET', `/v1/webhooks/${w.id}`],
        ['PATCH', `/v1/webhooks/${w.id}`, { description: 'x' }],
        ['DELETE', `/v1/webhooks/${w.id}`],
        ['POST', `/v1/webhooks/${w.id}/test`],
        ['POST', `/v1/webhooks/${w.id}/rotate-secret`],
        ['GET', `/v1/webhooks/${w.id}/deliveries`],
        ['GET', `/v1/webhooks/${w.id}/stats`],
      ] as Array<[string, string, unknown?]>) {
        const res = await t.request(method, path, { key, body });
        assert.equal(res.status, 404, `${method} ${path} with ${key.slice(0, 8)}`);
        assert.equal(res.body.error.code, 'not_found');
      }
    }
    assert.equal((await t.request('GET', `/v1/webhooks/${w.id}`, { key: KEYS.secret })).status, 200, 'still there');
    assert.equal((await t.request('GET', '/v1/webhooks/wh_nope', { key: KEYS.secret })).status, 404);
  });

  it('PATCH changes fields, applies the URL rules again and re-enables', async () => {
    const w = await created();
    const res = await t.request('PATCH', `/v1/webhooks/${w.id}`, {
      key: KEYS.secret,
      body: { url: 'https://127.0.0.1:10/new', events: ['BOOKING_NO_SHOW'], description: null },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.webhook.url, 'https://127.0.0.1:10/new');
    assert.deepEqual(res.body.webhook.events, ['BOOKING_NO_SHOW']);
    assert.equal(res.body.webhook.description, null);
    assert.equal(res.body.webhook.secret, undefined);

    for (const [body, field] of [
      [{ url: 'http://127.0.0.1/x' }, 'url'],
      [{ url: 'https://a:b@127.0.0.1/' }, 'url'],
      [{ events: [] }, 'events'],
      [{ events: ['NOPE'] }, 'events'],
      [{ is_active: 'maybe' }, 'is_active'],
      [{ is_active: 1 }, 'is_active'],
      [{ description: 7 }, 'description'],
      [{}, 'body'],
      [{ colour: 'red' }, 'body'],
    ] as const) {
      const bad = await t.request('PATCH', `/v1/webhooks/${w.id}`, { key: KEYS.secret, body });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.error.field, field);
      assert.match(bad.body.error.field, /^(url|events|description|is_active|body)$/);
    }
    assert.equal(
      (await t.request('GET', `/v1/webhooks/${w.id}`, { key: KEYS.secret })).body.webhook.description,
      null,
      'refused PATCHes changed nothing',
    );

    // as auto-disable leaves it
    await t.db.pool.query(
      `update webhooks set is_active = false, failure_reason = 'disabled after 10 consecutive failed delivery attempts', consecutive_failures = 10 where id = $1`,
      [w.id],
    );
    const disabled = await t.request('GET', `/v1/webhooks/${w.id}`, { key: KEYS.secret });
    assert.equal(disabled.body.webhook.is_active, false);
    assert.match(disabled.body.webhook.failure_reason, /10 consecutive/);
    const enabled = await t.request('PATCH', `/v1/webhooks/${w.id}`, { key: KEYS.secret, body: { isActive: true } });
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.webhook.is_active, true);
    assert.equal(enabled.body.webhook.failure_reason, null);
    const stats = await t.request('GET', `/v1/webhooks/${w.id}/stats`, { key: KEYS.secret });
    assert.equal(stats.body.stats.consecutive_failures, 0);
    const off = await t.request('PATCH', `/v1/webhooks/${w.id}`, { key: KEYS.secret, body: { is_active: false } });
    assert.equal(off.body.webhook.is_active, false);
  });

  it('DELETE removes it', async () => {
    const w = await created();
    const res = await t.request('DELETE', `/v1/webhooks/${w.id}`, { key: KEYS.secret });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, id: w.id, deleted: true });
    assert.equal((await t.request('GET', `/v1/webhooks/${w.id}`, { key: KEYS.secret })).status, 404);
    assert.equal((await t.request('DELETE', `/v1/webhooks/${w.id}`, { key: KEYS.secret })).status, 404);
  });

  it('rotate-secret answers {success, webhook: {id, secret, rotated_at}}', async () => {
    const w = await created();
    const res = await t.request('POST', `/v1/webhooks/${w.id}/rotate-secret`, { key: KEYS.secret });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.webhook).sort(), ['id', 'rotated_at', 'secret']);
    assert.match(res.body.webhook.secret, /^whsec_/);
    assert.notEqual(res.body.webhook.secret, w.secret);
  });

  it('deliveries and stats of a new webhook; bad history queries are 400', async () => {
    const w = await created();
    const res = await t.request('GET', `/v1/webhooks/${w.id}/deliveries`, { key: KEYS.secret });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, deliveries: [], pagination: { total: 0, limit: 20, offset: 0, has_more: false } });
    for (const [q, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=0x5', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=%20', 'offset'],
      ['offset=1e1', 'offset'],
      ['success=maybe', 'success'],
      ['event_type=NOPE', 'event_type'],
    ]) {
      const bad = await t.request('GET', `/v1/webhooks/${w.id}/deliveries?${q}`, { key: KEYS.secret });
      assert.equal(bad.status, 400, q);
      assert.equal(bad.body.error.field, field, bad.text);
    }
    assert.equal((await t.request('GET', `/v1/webhooks/${w.id}/deliveries?limit=100`, { key: KEYS.secret })).status, 200);
    const stats = await t.request('GET', `/v1/webhooks/${w.id}/stats`, { key: KEYS.secret });
    assert.equal(stats.status, 200);
    assert.deepEqual(stats.body.stats, {
      webhook_id: w.id,
      total_attempts: 0,
      succeeded: 0,
      failed: 0,
      pending: 0,
      success_rate: null,
      last_success_at: null,
      last_failure_at: null,
      consecutive_failures: 0,
      is_active: true,
    });
  });
});

describe('access', () => {
  it('needs a key, the right scope and a secret key', async () => {
    const w = await created();
    const reads: Array<[string, string]> = [
      ['GET', '/v1/webhooks'],
      ['GET', `/v1/webhooks/${w.id}`],
      ['GET', `/v1/webhooks/${w.id}/deliveries`],
      ['GET', `/v1/webhooks/${w.id}/stats`],
    ];
    const writes: Array<[string, string, unknown?]> = [
      ['POST', '/v1/webhooks', { url: URL_OK, events: ['BOOKING_CREATED'] }],
      ['PATCH', `/v1/webhooks/${w.id}`, { description: 'x' }],
      ['DELETE', `/v1/webhooks/${w.id}`],
      ['POST', `/v1/webhooks/${w.id}/test`],
      ['POST', `/v1/webhooks/${w.id}/rotate-secret`],
    ];
    for (const [method, path, body] of [...reads, ...writes]) {
      assert.equal((await t.request(method, path, { body })).status, 401, `${method} ${path} without a key`);
      assert.equal((await t.request(method, path, { key: KEYS.readOnly, body })).status, 403, `${method} ${path} without the scope`);
      assert.equal(
        (await t.request(method, path, { key: KEYS.publishableAnyOrigin, body })).status,
        403,
        `${method} ${path} with a publishable key`,
      );
    }
    for (const [method, path] of reads)
      assert.equal((await t.request(method, path, { key: READER })).status, 200, `${method} ${path} with webhooks:read`);
    for (const [method, path, body] of writes)
      assert.equal((await t.request(method, path, { key: READER, body })).status, 403, `${method} ${path} needs webhooks:manage`);
    assert.equal((await t.request('GET', `/v1/webhooks/${w.id}`, { key: KEYS.secret })).status, 200, 'nothing was changed');
  });

  it('the unprefixed paths are aliases', async () => {
    const res = await t.request('GET', '/webhooks', { key: KEYS.secret });
    assert.equal(res.status, 200);
  });
});
