import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { clearKeyCache, isOriginAllowed } from '../../src/domain/auth/keys.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(async () => t?.close());

function assertError(
  res: { status: number; body: { success: boolean; error: { type: string; code: string; message: string } } },
  status: number,
  type: string,
  code: string,
) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.type, type);
  assert.equal(res.body.error.code, code);
  assert.ok(res.body.error.message.length > 0);
}

describe('API keys', () => {
  it('accepts Authorization: Bearer, Service-Api-Key and the legacy X-API-Key', async () => {
    for (const headers of [
      { authorization: `Bearer ${KEYS.secret}` },
      { 'service-api-key': KEYS.secret },
      { 'x-api-key': KEYS.secret },
    ] as Record<string, string>[]) {
      const res = await t.request('GET', '/v1/event-types', { headers });
      assert.equal(res.status, 200, JSON.stringify(headers));
    }
  });

  it('401 unauthorized for a missing, malformed or unknown key', async () => {
    assertError(await t.request('GET', '/v1/event-types'), 401, 'authentication_error', 'unauthorized');
    assertError(
      await t.request('GET', '/v1/event-types', { headers: { authorization: 'Basic abc' } }),
      401,
      'authentication_error',
      'unauthorized',
    );
    assertError(await t.request('GET', '/v1/event-types', { key: 'not-a-key' }), 401, 'authentication_error', 'unauthorized');
    assertError(
      await t.request('GET', '/v1/event-types', { key: 'sk_test_does_not_exist_000000' }),
      401,
      'authentication_error',
      'unauthorized',
    );
    // a real key with its mode or kind prefix changed is another, unknown key
    assertError(
      await t.request('GET', '/v1/event-types', { key: KEYS.secret.replace('sk_test_', 'sk_live_') }),
      401,
      'authentication_error',
      'unauthorized',
    );
  });

  it("403 forbidden without the route's scope", async () => {
    const res = await t.request('GET', '/v1/team/members', { key: KEYS.readOnly });
    assertError(res, 403, 'permission_error', 'forbidden');
    assert.match(res.body.error.message, /team:read/);
  });

  it('403 forbidden for a publishable key on a secret-only route', async () => {
    for (const [method, path] of [
      ['GET', '/v1/bookings'],
      ['GET', '/v1/calendars'],
      ['POST', '/v1/event-types'],
      ['GET', '/v1/webhooks'],
      ['GET', '/v1/team/members/3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b01'],
    ]) {
      const res = await t.request(method, path, { key: KEYS.publishableAnyOrigin, body: method === 'POST' ? {} : undefined });
      assertError(res, 403, 'permission_error', 'forbidden');
    }
  });

  it('rejects a disallowed Origin with 403 and answers an allowed one with CORS headers', async () => {
    const denied = await t.request('GET', '/v1/event-types', { key: KEYS.publishable, headers: { origin: 'https://evil.example' } });
    assertError(denied, 403, 'permission_error', 'forbidden');
    const allowed = await t.request('GET', '/v1/event-types', { key: KEYS.publishable, headers: { origin: 'http://localhost:3000' } });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.match(allowed.headers.get('vary') ?? '', /Origin/);
    // a key without allowed_origins does not restrict origins
    const open = await t.request('GET', '/v1/event-types', { key: KEYS.secret, headers: { origin: 'https://any.example' } });
    assert.equal(open.status, 200);
  });

  /** Runs `check` with the publishable keys that have no allowed_origins revoked (the fixture has one). */
  async function withoutOpenPublishableKeys(check: () => Promise<void>): Promise<void> {
    const { rows } = await t.db.pool.query<{ id: string }>(
      `update api_keys set revoked_at = now() where kind = 'publishable' and allowed_origins is null and revoked_at is null returning id`,
    );
    assert.ok(rows.length > 0);
    clearKeyCache();
    try {
      await check();
    } finally {
      await t.db.pool.query('update api_keys set revoked_at = null where id = any($1)', [rows.map((r) => r.id)]);
      clearKeyCache();
    }
  }

  it('answers a CORS preflight from any origin while a publishable key without allowed_origins is active', async () => {
    const pre = await t.request('OPTIONS', '/v1/event-types', {
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    assert.equal(pre.status, 204, pre.text);
    assert.equal(pre.headers.get('access-control-allow-origin'), 'https://shop.example');
    // and the call itself, with that key, from that origin
    const res = await t.request('GET', '/v1/event-types', { key: KEYS.publishableAnyOrigin, headers: { origin: 'https://shop.example' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://shop.example');
  });

  it('answers a CORS preflight for an allowed origin and refuses others', () =>
    withoutOpenPublishableKeys(async () => {
      const ok = await t.request('OPTIONS', '/v1/bookings', {
        headers: {
          origin: 'http://127.0.0.1:3000',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
      assert.equal(ok.status, 204);
      assert.equal(ok.headers.get('access-control-allow-origin'), 'http://127.0.0.1:3000');
      assert.match(ok.headers.get('access-control-allow-headers') ?? '', /Authorization/);
      assert.match(ok.headers.get('access-control-allow-methods') ?? '', /POST/);
      const no = await t.request('OPTIONS', '/v1/bookings', {
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      assertError(no, 403, 'permission_error', 'forbidden');
    }));

  it('origin answers are kept 10 s: a key that starts listing an origin opens its preflight within that', () =>
    withoutOpenPublishableKeys(async () => {
      const origin = 'https://late.example';
      const start = Date.now();
      assert.equal(await isOriginAllowed(t.db.pool, origin, start), false);
      await t.db.pool.query(`update api_keys set allowed_origins = array_append(allowed_origins, $1) where allowed_origins is not null`, [
        origin,
      ]);
      try {
        assert.equal(await isOriginAllowed(t.db.pool, origin, start + 9_000), false, 'still the cached refusal');
        assert.equal(await isOriginAllowed(t.db.pool, origin, start + 10_001), true, 'asked again after 10 s');
      } finally {
        await t.db.pool.query(`update api_keys set allowed_origins = array_remove(allowed_origins, $1)`, [origin]);
      }
    }));

  it('free/busy needs no key: any origin passes its preflight and gets Access-Control-Allow-Origin *', async () => {
    for (const path of ['/v1/freebusy/00000000-0000-4000-8000-000000000001', '/freebusy/anyone', '/v1/freebusy/anyone/']) {
      const pre = await t.request('OPTIONS', path, { headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
      assert.equal(pre.status, 204, path);
      assert.equal(pre.headers.get('access-control-allow-origin'), '*');
    }
    // only the free/busy route itself: a longer path is not open
    await withoutOpenPublishableKeys(async () => {
      const deeper = await t.request('OPTIONS', '/v1/freebusy/a/b', {
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      });
      assertError(deeper, 403, 'permission_error', 'forbidden');
    });
    const res = await t.request(
      'GET',
      '/v1/freebusy/00000000-0000-4000-8000-000000000001?start=2026-11-24T00:00:00Z&end=2026-11-25T00:00:00Z',
      {
        headers: { origin: 'https://evil.example' },
      },
    );
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });
});

describe('request pipeline', () => {
  it('sets X-Request-Id (UUID v4) and Vary: Origin on every response, errors included', async () => {
    for (const res of [
      await t.request('GET', '/v1/event-types', { key: KEYS.secret }),
      await t.request('GET', '/v1/event-types'),
      await t.request('GET', '/v1/nowhere', { key: KEYS.secret }),
    ]) {
      assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(res.headers.get('vary') ?? '', /Origin/);
    }
  });

  it('echoes a valid client X-Request-Id and replaces an invalid one', async () => {
    const mine = 'client-trace-42';
    const echoed = await t.request('GET', '/v1/event-types', { key: KEYS.secret, headers: { 'x-request-id': mine } });
    assert.equal(echoed.headers.get('x-request-id'), mine);
    const long = 'x'.repeat(129);
    const replaced = await t.request('GET', '/v1/event-types', { key: KEYS.secret, headers: { 'x-request-id': long } });
    assert.notEqual(replaced.headers.get('x-request-id'), long);
    assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const max = 'y'.repeat(128);
    assert.equal(
      (await t.request('GET', '/v1/event-types', { key: KEYS.secret, headers: { 'x-request-id': max } })).headers.get('x-request-id'),
      max,
    );
    // Regression: a space is printable ASCII (0x20..0x7e) and is echoed; a non-ASCII byte is not.
    const spaced = 'trace 42';
    assert.equal(
      (await t.request('GET', '/v1/event-types', { key: KEYS.secret, headers: { 'x-request-id': spaced } })).headers.get('x-request-id'),
      spaced,
    );
    const latin = await t.request('GET', '/v1/event-types', { key: KEYS.secret, headers: { 'x-request-id': 'caf\u00e9' } });
    assert.match(latin.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it("HEAD on a keyed route passes the GET route's key and scope checks (regression: it skipped them and crashed)", async () => {
    assert.equal((await t.request('HEAD', '/v1/event-types')).status, 401);
    assert.equal((await t.request('HEAD', '/v1/calendars', { key: KEYS.publishableAnyOrigin })).status, 403);
    assert.equal((await t.request('HEAD', '/v1/team/members', { key: KEYS.readOnly })).status, 403);
    const ok = await t.request('HEAD', '/v1/event-types', { key: KEYS.secret });
    assert.equal(ok.status, 200);
    assert.ok(ok.headers.get('x-ratelimit-limit'));
    assert.equal((await t.request('HEAD', '/event-types/et_intro_call', { key: KEYS.secret })).status, 200);
  });

  it('a non-Bearer Authorization header is 401 saying so; an empty key header counts as none', async () => {
    const basic = await t.request('GET', '/v1/event-types', { headers: { authorization: 'Basic abc' } });
    assertError(basic, 401, 'authentication_error', 'unauthorized');
    assert.match(basic.body.error.message, /Bearer/);
    const bare = await t.request('GET', '/v1/event-types', { headers: { authorization: KEYS.secret } });
    assertError(bare, 401, 'authentication_error', 'unauthorized');
    assert.equal((await t.request('GET', '/v1/event-types', { headers: { authorization: `bearer ${KEYS.secret}` } })).status, 200);
    const empty = await t.request('GET', '/v1/event-types', { headers: { 'service-api-key': '' } });
    assertError(empty, 401, 'authentication_error', 'unauthorized');
    assert.match(empty.body.error.message, /missing/);
  });

  it('a plain OPTIONS without Origin is 204 with Allow, not a 403', async () => {
    const res = await t.request('OPTIONS', '/v1/event-types');
    assert.equal(res.status, 204);
    assert.match(res.headers.get('allow') ?? '', /GET/);
  });

  it('unknown route is a 404 envelope', async () => {
    assertError(await t.request('GET', '/v1/nowhere', { key: KEYS.secret }), 404, 'not_found_error', 'not_found');
  });

  it('malformed JSON is 400 validation_error and writes nothing', async () => {
    const res = await t.request('POST', '/v1/event-types', { key: KEYS.secret, rawBody: '{"name": ' });
    assertError(res, 400, 'invalid_request_error', 'validation_error');
    const count = await t.db.pool.query('select count(*)::int n from event_types');
    assert.equal(count.rows[0].n, 4);
  });

  it('a body over 256 KB is 413 payload_too_large', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(256 * 1024) });
    const res = await t.request('POST', '/v1/event-types', { key: KEYS.secret, rawBody: big });
    assertError(res, 413, 'invalid_request_error', 'payload_too_large');
  });

  it('an unexpected error is 500 internal_error naming only the request id', async () => {
    await t.db.pool.query('alter table event_types rename to event_types_away');
    try {
      const res = await t.request('GET', '/v1/event-types', { key: KEYS.secret, headers: { 'x-request-id': 'trace-500' } });
      assertError(res, 500, 'api_error', 'internal_error');
      assert.match(res.body.error.message, /trace-500/);
      assert.doesNotMatch(res.text, /event_types_away|relation|select/i);
    } finally {
      await t.db.pool.query('alter table event_types_away rename to event_types');
    }
  });

  it('rate-limit headers are on every keyed response', async () => {
    const res = await t.request('GET', '/v1/event-types', { key: KEYS.secret });
    assert.equal(res.headers.get('x-ratelimit-limit'), '100000');
    assert.ok(Number(res.headers.get('x-ratelimit-remaining')) < 100000);
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    const nowSeconds = Date.now() / 1000;
    assert.ok(reset > nowSeconds && reset <= nowSeconds + 61, `reset ${reset} is a Unix time within the minute`);
  });
});

describe('operations', () => {
  it('healthz and readyz need no key', async () => {
    assert.equal((await t.request('GET', '/healthz')).status, 200);
    const ready = await t.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
  });

  it('healthz and readyz carry success: true and also answer under /v1', async () => {
    for (const path of ['/healthz', '/readyz', '/v1/healthz', '/v1/readyz']) {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, path);
      assert.equal(res.body.success, true, path);
    }
  });

  it('serves the API reference page without a key (test/http/reference.test.ts says more)', async () => {
    const page = await t.request('GET', '/docs/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  });
});
