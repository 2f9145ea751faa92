import type { Config } from '../config.ts';
import type { RateLimitStore } from './rate-limit-store.ts';
import { MemoryRateLimitStore, RedisRateLimitStore } from './rate-limit-store.ts';

/** Redis when REDIS_URL is set, so every API process counts against the same limit. */
export function createRateLimitStore(config: Config): RateLimitStore {
  return config.redisUrl ? new RedisRateLimitStore(config.redisUrl) : new MemoryRateLimitStore();
}
