import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { FreeBusyCache } from '../domain/availability/freebusy-cache.ts';
import type { RedisState } from '../lib/redis-link.ts';

/** What route handlers may use; built once per process in src/http/server.ts. */
export interface AppDeps {
  db: Pool;
  config: Config;
  /** The clock, injected so tests can stand at a fixed instant. */
  now: () => Date;
  freebusyCache: FreeBusyCache;
  /** Whether Redis (REDIS_URL) is usable now, for /readyz; absent when no Redis is configured. */
  redisState?: () => RedisState;
}
