import { Redis } from 'ioredis';
import type { Config } from '../../config.ts';
import type { FreeBusyCache } from './freebusy-cache.ts';
import { MemoryFreeBusyCache, RedisFreeBusyCache } from './freebusy-cache.ts';

export type ClosableFreeBusyCache = FreeBusyCache & { close(): Promise<void> };

/** With REDIS_URL the cache is shared by every process (and invalidations reach them all); else per process. */
export function createFreeBusyCache(config: Config): ClosableFreeBusyCache {
  if (config.redisUrl) {
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
    redis.on('error', () => {});
    const cache = new RedisFreeBusyCache(redis);
    return Object.assign(cache, { close: async () => void (await redis.quit().catch(() => {})) });
  }
  const cache = new MemoryFreeBusyCache();
  return Object.assign(cache, { close: async () => {} });
}
