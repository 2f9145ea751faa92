import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { FreeBusyCache } from '../domain/availability/freebusy-cache.ts';

/** What job handlers may use; built once per worker process. */
export interface WorkerDeps {
  db: Pool;
  config: Config;
  now: () => Date;
  log: Logger;
  freebusyCache: FreeBusyCache;
}
