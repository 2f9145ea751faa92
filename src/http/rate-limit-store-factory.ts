import type { RedisLink } from '../lib/redis-link.ts';
import type { RateLimitStore } from './rate-limit-store.ts';
import { MemoryRateLimitStore, RedisRateLimitStore } from './rate-limit-store.ts';

/** Redis when REDIS_URL is set (a link is given), so every API process counts against the same limit. */
export function createRateLimitStore(redis: RedisLink | undefined): RateLimitStore {
  return redis ? new RedisRateLimitStore(redis) : new MemoryRateLimitStore();
}
