import pino from 'pino';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { ConfigError } from './config.ts';
import { startEmbedded } from './db/embedded.ts';
import type { Pool } from './db/pool.ts';
import { createPool, openConnections } from './db/pool.ts';
import { loggerOptions } from './http/log.ts';

export interface Database {
  pool: Pool;
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** JSON lines for log collectors; human-readable ones (pino-pretty) when LOG_FORMAT=pretty, the default on a terminal. */
export function createLogger(config: Config): Logger {
  const options = loggerOptions(config.logLevel);
  if (config.logFormat === 'json') return pino(options);
  return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } });
}

/** Connection failures that a restart will not cure: PostgreSQL's auth and unknown-database codes, an unknown host. */
const MISCONFIGURED = new Set(['28P01', '28000', '3D000', 'ENOTFOUND']);

/**
 * DATABASE_URL when set, otherwise the embedded cluster under DATA_DIR; checked by connecting.
 * `kept`: connections opened now and kept open however idle (createPool's `min`).
 */
export async function openDatabase(config: Config, poolSize = 20, kept = 0): Promise<Database> {
  let url = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    const log = createLogger(config);
    const embedded = await startEmbedded(config.dataDir, undefined, { dataDirIsDefault: config.dataDirIsDefault, log: (m) => log.warn(m) });
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const pool = createPool(url, poolSize, kept);
  try {
    await pool.query('select 1');
    await openConnections(pool, kept);
  } catch (err) {
    await pool.end().catch(() => {});
    if (stopEmbedded) await stopEmbedded().catch(() => {});
    const reason = (err as Error).message || (err as NodeJS.ErrnoException).code || 'connection failed';
    if (config.databaseUrl) {
      const message = `DATABASE_URL: cannot connect to the database (${reason})`;
      // A wrong password, user, database or host name is the configuration's fault (78: fix it
      // before starting again); a server that is down or refusing now may be back in a moment
      // (1: a supervisor restarts the process).
      if (MISCONFIGURED.has((err as { code?: string }).code ?? '')) throw new ConfigError(message);
      throw new Error(message, { cause: err });
    }
    throw new Error(`embedded PostgreSQL: cannot connect (${reason})`, { cause: err });
  }
  return {
    pool,
    url,
    embedded: !config.databaseUrl,
    async close() {
      await pool.end().catch(() => {});
      if (stopEmbedded) await stopEmbedded();
    },
  };
}
