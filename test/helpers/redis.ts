import { Redis } from 'ioredis';
import { skipBecause } from './components.ts';

/** The Redis the tests that need one use: database 15, so nothing of a developer's is touched. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

async function redisReachable(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** A node:test `skip` option: false when TEST_REDIS_URL answers, else why the test is skipped (in CI: a failure). */
export async function skipWithoutRedis(): Promise<false | string> {
  return (await redisReachable(TEST_REDIS_URL)) ? false : skipBecause(`no Redis reachable at ${TEST_REDIS_URL} (set TEST_REDIS_URL)`);
}
