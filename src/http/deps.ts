import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { FreeBusyCache } from '../domain/availability/freebusy-cache.ts';
import type { CalendarBusyCache } from '../domain/availability/calendar-busy-cache.ts';
import type { RedisState } from '../lib/redis-link.ts';

/** What route handlers may use; built once per process in src/http/server.ts. */
export interface AppDeps {
  db: Pool;
  config: Config;
  /** The clock, injected so tests can stand at a fixed instant. */
  now: () => Date;
  freebusyCache: FreeBusyCache;
  /** The hosts' calendar blocks for GET /availability, dropped by the busy-time listener. */
  calendarBusy: CalendarBusyCache;
  /** Whether Redis (REDIS_URL) is usable now, for /readyz; absent when no Redis is configured. */
  redisState?: () => RedisState;
}
