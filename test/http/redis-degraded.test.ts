import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { CalendarBusyCache } from '../../src/domain/availability/calendar-busy-cache.ts';
import { createFreeBusyCache } from '../../src/domain/availability/freebusy-cache-factory.ts';
import { clearKeyCache } from '../../src/domain/auth/keys.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import { createRateLimitStore } from '../../src/http/rate-limit-store-factory.ts';
import { buildServer } from '../../src/http/server.ts';
import { connectRedis } from '../../src/lib/redis-link.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { KEYS, testSeed } from '../helpers/fixtures.ts';
import { TEST_REDIS_URL, skipWithoutRedis } from '../helpers/redis.ts';
import type { TcpProxy } from '../helpers/tcp-proxy.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

// An unreachable Redis used to turn every keyed request into a 7-15 s 500 while /readyz said
// ready. Now the API serves on per-process counters and a local cache, says so once in the log
// (naming Redis and its address, never the password) and in /readyz, and goes back to Redis by
// itself when it answers again.

let db: TestDatabase;
before(async () => {
  clearKeyCache();
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(async () => db?.drop());

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** The API as `serve` builds it, on one Redis link, with its log lines collected. */
async function serveWith(redisUrl: string) {
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const raw: string[] = [];
  const log = pino({ level: 'info' }, { write: (s: string) => void (raw.push(s), lines.push(JSON.parse(s))) });
  const config = loadConfig({ DATABASE_URL: db.url, REDIS_URL: redisUrl, RATE_LIMIT_TEST_PER_MINUTE: '3', LOG_LEVEL: 'silent' });
  const link = connectRedis(redisUrl, log);
  const freebusyCache = createFreeBusyCache(link);
  const app: FastifyInstance = await buildServer({
    deps: { db: db.pool, config, now: () => new Date(), freebusyCache, calendarBusy: new CalendarBusyCache(), redisState: link.state },
    rateLimitStore: createRateLimitStore(link),
    logger: false,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  const base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  /** One keyed request, timed. */
  const get = async (path: string, key: string | null = KEYS.secret) => {
    const t0 = performance.now();
    const res = await fetch(base + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body, ms: performance.now() - t0, remaining: res.headers.get('x-ratelimit-remaining') };
  };
  return {
    link,
    freebusyCache,
    lines,
    raw,
    get,
    async close() {
      await app.close();
      await link.close();
    },
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await check()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('Redis on a closed port', () => {
  it('serves at once on per-process counters, says degraded in /readyz and once in the log, without the password', async () => {
    const port = await closedPort();
    const s = await serveWith(`redis://:hunter2-secret@127.0.0.1:${port}/15`);
    try {
      await until('the first connection attempt to fail', () => s.link.state() === 'degraded' && s.lines.length > 0);
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await s.get('/v1/event-types'));
      assert.deepEqual(
        results.map((r) => r.status),
        [200, 200, 200, 429, 429],
        'the limit of 3 is enforced by this process',
      );
      for (const r of results) assert.ok(r.ms < 2000, `a request took ${Math.round(r.ms)} ms`);
      const ready = await s.get('/readyz', null);
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { success: true, status: 'ready', redis: 'degraded' });
      await new Promise((r) => setTimeout(r, 1500)); // several reconnection attempts fail meanwhile
      const about = s.lines.filter((l) => /Redis/.test(l.msg));
      assert.equal(about.length, 1, `one line per change of state: ${JSON.stringify(about)}`);
      assert.match(about[0]!.msg, new RegExp(`Redis at 127\\.0\\.0\\.1:${port}/15 is unreachable \\((ECONNREFUSED|ETIMEDOUT)\\)`));
      assert.equal(about[0]!.redis, `127.0.0.1:${port}/15`);
      assert.ok(!s.raw.join('').includes('hunter2'), 'the password is never logged');
      // the cache works locally
      await s.freebusyCache.set('m', 'k', { slots: [1] });
      assert.deepEqual(await s.freebusyCache.get('m', 'k'), { slots: [1] });
    } finally {
      await s.close();
    }
  });
});

describe('Redis dropped mid-run and back', { skip: await skipWithoutRedis() }, () => {
  let proxy: TcpProxy;
  let direct: Redis;
  const target = new URL(TEST_REDIS_URL);
  before(async () => {
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    direct = new Redis(TEST_REDIS_URL);
  });
  after(async () => {
    await proxy?.stop();
    direct?.disconnect();
  });

  it('falls back while Redis is away or silent, and shares counters and the cache again when it returns', async () => {
    const url = `redis://${target.hostname === '127.0.0.1' ? '127.0.0.1' : target.hostname}:${proxy.port}${target.pathname}`;
    const s = await serveWith(url);
    const cleanup: string[] = [];
    /** Every rate-limit count in Redis, summed: a hit counted there raises it. */
    const sharedCount = async () => {
      const keys = await direct.keys('booking-service:rl:*');
      return keys.length === 0 ? 0 : (await direct.mget(...keys)).reduce((sum, v) => sum + Number(v ?? 0), 0);
    };
    try {
      await until('Redis to be ready', () => s.link.state() === 'ok');
      assert.deepEqual((await s.get('/readyz', null)).body, { success: true, status: 'ready', redis: 'ok' });
      // counted in Redis: another client sees the count
      const before = await sharedCount();
      assert.equal((await s.get('/v1/event-types', KEYS.live)).status, 200);
      assert.ok((await sharedCount()) > before, 'the hit is counted in Redis');
      const cacheMember = `member-${Date.now()}`;
      cleanup.push(`booking-service:freebusy:${cacheMember}:e:answer`, `booking-service:freebusy:${cacheMember}:index`);
      await s.freebusyCache.set(cacheMember, 'answer', 'before the outage');

      // Redis goes away: every request still answers, quickly
      await proxy.stop();
      const during = [];
      for (let i = 0; i < 6; i++) during.push(await s.get('/v1/event-types', KEYS.live));
      for (const r of during) {
        assert.equal(r.status, 200);
        assert.ok(r.ms < 2000, `a request took ${Math.round(r.ms)} ms while Redis was away`);
      }
      assert.equal(s.link.state(), 'degraded');
      assert.deepEqual((await s.get('/readyz', null)).body, { success: true, status: 'ready', redis: 'degraded' });
      // a booking change while Redis is away: its invalidation must reach Redis when it returns
      await s.freebusyCache.invalidate([cacheMember]);

      // Redis returns: the process uses it again by itself
      await proxy.start();
      const back = await until('Redis to be used again', async () => (await s.get('/readyz', null)).body.redis === 'ok');
      console.log(`# Redis used again ${back} ms after it returned`);
      assert.ok(back < 5000, `took ${back} ms`);
      const entry = `booking-service:freebusy:${cacheMember}:e:answer`;
      assert.equal(await s.freebusyCache.get(cacheMember, 'answer'), undefined, 'the answer cached before the outage is never served');
      await until('the answer cached before the outage to be gone from Redis', async () => (await direct.get(entry)) === null, 3000);
      // The replay ends a few callbacks after Redis has run its DEL; until then the process keeps
      // to its local cache, so a write made in between stays local (a cache fill, harmless).
      await until(
        'the cache to be shared again',
        async () => {
          await s.freebusyCache.set(cacheMember, 'answer', 'after');
          return (await direct.get(entry)) !== null;
        },
        3000,
      );
      assert.equal(JSON.parse((await direct.get(entry))!), 'after', 'the cache is shared again');
      const beforeHit = await sharedCount();
      assert.equal((await s.get('/v1/event-types', KEYS.live)).status, 200);
      assert.ok((await sharedCount()) > beforeHit, 'hits are counted in Redis again');

      // Redis stops answering without closing the connection: commands time out, once
      proxy.pause(true);
      const silent = await s.get('/v1/event-types', KEYS.live);
      assert.equal(silent.status, 200);
      assert.ok(silent.ms < 1500, `a request took ${Math.round(silent.ms)} ms while Redis was silent`);
      const next = await s.get('/v1/event-types', KEYS.live);
      assert.ok(next.ms < 450, `after a timeout the next request does not wait on Redis (${Math.round(next.ms)} ms)`);
      proxy.pause(false);
      await until('Redis to be used again after the silence', () => s.link.state() === 'ok');

      const states = s.lines.filter((l) => /Redis at/.test(l.msg)).map((l) => (/unreachable/.test(l.msg) ? 'down' : 'up'));
      // (a first connection slower than the 1 s connect timeout on a busy machine adds a 'down' first)
      assert.ok(
        states.every((x, i) => i === 0 || x !== states[i - 1]),
        `one line per change of state: ${states.join(', ')}`,
      );
      assert.deepEqual(states.slice(states.indexOf('up')), ['up', 'down', 'up', 'down', 'up'], 'one line per change of state');
    } finally {
      await s.close();
      if (cleanup.length > 0) await direct.del(...cleanup);
    }
  });
});
