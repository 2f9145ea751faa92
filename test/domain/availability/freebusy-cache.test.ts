import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { createFreeBusyCache } from '../../../src/domain/availability/freebusy-cache-factory.ts';
import type { FreeBusyCache } from '../../../src/domain/availability/freebusy-cache.ts';
import { MemoryFreeBusyCache, RedisFreeBusyCache } from '../../../src/domain/availability/freebusy-cache.ts';
import { TEST_REDIS_URL, skipWithoutRedis } from '../../helpers/redis.ts';

function contract(name: string, make: () => { cache: FreeBusyCache; advance?: (ms: number) => void }) {
  describe(name, () => {
    it('returns what was set, per member and key', async () => {
      const { cache } = make();
      await cache.set('m1', 'k', { a: 1 });
      assert.deepEqual(await cache.get('m1', 'k'), { a: 1 });
      assert.equal(await cache.get('m1', 'other'), undefined);
      assert.equal(await cache.get('m2', 'k'), undefined);
    });

    it('invalidate drops every answer of the named members only', async () => {
      const { cache } = make();
      await cache.set('m1', 'k1', 1);
      await cache.set('m1', 'k2', 2);
      await cache.set('m2', 'k1', 3);
      await cache.invalidate(['m1']);
      assert.equal(await cache.get('m1', 'k1'), undefined);
      assert.equal(await cache.get('m1', 'k2'), undefined);
      assert.equal(await cache.get('m2', 'k1'), 3);
      await cache.invalidate(['nobody']);
    });
  });
}

let clock = 0;
contract('MemoryFreeBusyCache', () => ({ cache: new MemoryFreeBusyCache(() => clock) }));

it('MemoryFreeBusyCache expires answers after 60 seconds', async () => {
  const cache = new MemoryFreeBusyCache(() => clock);
  await cache.set('m', 'k', 1);
  clock += 59_000;
  assert.equal(await cache.get('m', 'k'), 1);
  clock += 1_000;
  assert.equal(await cache.get('m', 'k'), undefined);
});

it('MemoryFreeBusyCache sweeps expired entries of every member once a minute', async () => {
  let now = 0;
  const cache = new MemoryFreeBusyCache(() => now);
  for (let m = 0; m < 100; m++) await cache.set(`m${m}`, 'k', m);
  assert.equal(cache.size(), 100);
  now += 60_000;
  await cache.set('m0', 'fresh', 1); // the first set of a new minute sweeps
  assert.equal(cache.size(), 1);
  assert.equal(await cache.get('m0', 'fresh'), 1);
});

describe('RedisFreeBusyCache', { skip: await skipWithoutRedis() }, () => {
  let redis: Redis;
  const prefix = `test:freebusy:${randomBytes(4).toString('hex')}`;
  before(async () => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  contract('shared contract', () => ({ cache: new RedisFreeBusyCache(redis, `${prefix}:${randomBytes(3).toString('hex')}`) }));

  it('stores with a 60 second expiry, visible to another client', async () => {
    const cache = new RedisFreeBusyCache(redis, prefix);
    await cache.set('m', 'k', { slots: [1] });
    const ttl = await redis.ttl(`${prefix}:m:e:k`);
    assert.ok(ttl > 55 && ttl <= 60, String(ttl));
    const second = new Redis(TEST_REDIS_URL);
    try {
      assert.deepEqual(await new RedisFreeBusyCache(second, prefix).get('m', 'k'), { slots: [1] });
    } finally {
      await second.quit();
    }
  });

  it('an answer stored while another process invalidates is never left out of every index', async () => {
    // Stored between an invalidation's read of the index and its delete of it, an answer used to
    // lose its index entry and so outlive every later invalidation (until its 60 s expiry).
    const own = `${prefix}:race`;
    const second = new Redis(TEST_REDIS_URL);
    try {
      const writer = new RedisFreeBusyCache(redis, own);
      const invalidator = new RedisFreeBusyCache(second, own);
      for (let round = 0; round < 200; round++) {
        await writer.set('m', 'seed', round);
        await Promise.all([invalidator.invalidate(['m']), writer.set('m', `k${round}`, round)]);
      }
      await invalidator.invalidate(['m']);
      assert.deepEqual(await redis.keys(`${own}:m:e:*`), [], 'answers no invalidation can reach');
    } finally {
      await second.quit();
    }
  });
});

describe('RedisFreeBusyCache without Redis', () => {
  it('fails open when Redis is unreachable', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    dead.on('error', () => {});
    const cache = new RedisFreeBusyCache(dead);
    await cache.set('m', 'k', 1);
    assert.equal(await cache.get('m', 'k'), undefined);
    await cache.invalidate(['m']);
    dead.disconnect();
  });
});

describe('FREEBUSY_CACHE', () => {
  it('off: the factory gives a cache that keeps nothing', async () => {
    const cache = createFreeBusyCache(undefined, loadConfig({ FREEBUSY_CACHE: 'off' }).freebusyCache);
    await cache.set('m', 'k', 1);
    assert.equal(await cache.get('m', 'k'), undefined);
    await cache.invalidate(['m']);
    await cache.close();
  });

  it('on (the default): answers are kept', async () => {
    for (const env of [{}, { FREEBUSY_CACHE: 'on' }]) {
      const cache = createFreeBusyCache(undefined, loadConfig(env).freebusyCache);
      await cache.set('m', 'k', 1);
      assert.equal(await cache.get('m', 'k'), 1);
      await cache.close();
    }
  });

  it('refuses any other value', () => {
    assert.throws(
      () => loadConfig({ FREEBUSY_CACHE: 'no' }),
      (err: unknown) => err instanceof ConfigError && err.message === 'FREEBUSY_CACHE: must be on or off, got "no"',
    );
  });
});
