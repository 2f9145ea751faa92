import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { startCli } from '../helpers/cli.ts';
import { KEYS } from '../helpers/fixtures.ts';
import { TEST_REDIS_URL, skipWithoutRedis } from '../helpers/redis.ts';
import { freePort } from '../helpers/ports.ts';

describe('per-key rate limits (in memory)', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ env: { RATE_LIMIT_TEST_PER_MINUTE: '3', RATE_LIMIT_LIVE_PER_MINUTE: '5' } });
  });
  after(async () => t?.close());

  it('counts per key and answers 429 rate_limit_exceeded with Retry-After past the limit', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await t.request('GET', '/v1/event-types', { key: KEYS.readOnly });
      statuses.push(last.status);
      // Retry-After belongs to the 429 only
      if (last.status !== 429) assert.equal(last.headers.get('retry-after'), null);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    assert.equal(last!.body.error.code, 'rate_limit_exceeded');
    assert.equal(last!.body.error.type, 'rate_limit_error');
    const retry = Number(last!.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    assert.equal(last!.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(last!.headers.get('x-ratelimit-limit'), '3');
    // another key has its own budget; live keys have the live limit
    const other = await t.request('GET', '/v1/event-types', { key: KEYS.secret });
    assert.equal(other.status, 200);
    const live = await t.request('GET', '/v1/event-types', { key: KEYS.live });
    assert.equal(live.headers.get('x-ratelimit-limit'), '5');
  });

  it('a 403 to a valid key (scope, secret-only route, origin) carries the headers and counts, as every keyed answer does', async () => {
    const refused = [
      await t.request('GET', '/v1/calendars', { key: KEYS.publishable }),
      await t.request('GET', '/v1/event-types', { key: KEYS.publishable, headers: { origin: 'https://elsewhere.example' } }),
      await t.request('GET', '/v1/event-types', { key: KEYS.publishable, headers: { origin: 'http://127.0.0.1:3000' } }),
    ];
    assert.deepEqual(
      refused.map((r) => r.status),
      [403, 403, 200],
    );
    assert.deepEqual(
      refused.map((r) => r.headers.get('x-ratelimit-remaining')),
      ['2', '1', '0'],
    );
    for (const r of refused) assert.equal(r.headers.get('x-ratelimit-limit'), '3');
    // the refused origin gets no CORS grant; the allowed one does
    assert.equal(refused[1].headers.get('access-control-allow-origin'), null);
    assert.equal(refused[2].headers.get('access-control-allow-origin'), 'http://127.0.0.1:3000');
  });

  it('requests without a key are not counted against any key', async () => {
    const res = await t.request('GET', '/healthz');
    assert.equal(res.headers.get('x-ratelimit-limit'), null);
  });
});

/** Only the rate-limit counters: other test files share the Redis database. */
async function clearCounters(redis: Redis): Promise<void> {
  const keys = await redis.keys('booking-service:rl:*');
  if (keys.length > 0) await redis.del(...keys);
}

describe('rate limits shared through Redis by two serve processes', async () => {
  it('two processes on one database enforce one limit per key', { skip: await skipWithoutRedis() }, async () => {
    const t = await startApp({ env: {} });
    const redis = new Redis(TEST_REDIS_URL);
    await clearCounters(redis);
    const env = { DATABASE_URL: t.db.url, REDIS_URL: TEST_REDIS_URL, RATE_LIMIT_TEST_PER_MINUTE: '6', LOG_LEVEL: 'info' };
    const ports = [await freePort(), await freePort()];
    const servers = ports.map((p) => startCli(['serve'], { ...env, PORT: String(p) }, /booking service ready/));
    try {
      await Promise.all(servers.map((s) => s.started));
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await fetch(`http://127.0.0.1:${ports[i % 2]}/v1/event-types`, { headers: { authorization: `Bearer ${KEYS.secret}` } });
        statuses.push(res.status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429]);
    } finally {
      for (const s of servers) s.child.kill('SIGTERM');
      await Promise.all(servers.map((s) => s.exited));
      await clearCounters(redis);
      redis.disconnect();
      await t.close();
    }
  });
});
