import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { FreeBusyCache } from '../domain/availability/freebusy-cache.ts';

/** What route handlers may use; built once per process in src/http/server.ts. */
export interface AppDeps {
  db: Pool;
  config: Config;
  /** The clock, injected so tests can stand at a fixed instant. */
  now: () => Date;
  freebusyCache: FreeBusyCache;
}
