import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from './pool.ts';
import { exec } from './pool.ts';

const CHANNEL = 'booking_service_config';
const RECONNECT_MS = 1000;

/**
 * Tells every running process that API keys or an organization's configuration changed (seed,
 * keys create). Inside a transaction it is delivered at commit, and not at all on rollback.
 */
export async function announceConfigChange(db: Db): Promise<void> {
  await exec(db, `select pg_notify('${CHANNEL}', '')`);
}

export interface ConfigListener {
  close(): Promise<void>;
}

/**
 * Calls `onChange` at every announced change, on a connection of its own (LISTEN holds one), so
 * per-process caches of keys can drop what they hold at once rather than when it expires. Each
 * time LISTEN takes effect (at start, and after a lost connection is opened again a second
 * later) `onChange` runs too, since announcements made before were missed; until then the
 * caches' own expiry still applies. TCP keepalive notices a connection dropped silently.
 */
export function listenForConfigChanges(url: string, onChange: () => void, log: Logger): ConfigListener {
  return listenOnChannel(url, CHANNEL, () => onChange(), onChange, log, 'configuration change listener');
}

/**
 * LISTEN on `channel` on a connection of its own, calling `onNotify` with each payload and
 * `onListening` each time LISTEN takes effect (announcements made while it was not were missed).
 */
export function listenOnChannel(
  url: string,
  channel: string,
  onNotify: (payload: string) => void,
  onListening: () => void,
  log: Logger,
  name: string,
): ConfigListener {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;

  const retry = () => {
    client = undefined;
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, RECONNECT_MS);
  };

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: url, application_name: 'booking-service', keepAlive: true });
    c.on('notification', (msg) => onNotify(msg.payload ?? ''));
    c.on('error', (err) => log.warn({ err: err.message }, `${name}: connection lost`));
    c.on('end', retry);
    try {
      await c.connect();
      await c.query(`listen ${channel}`);
      if (closed) {
        await c.end();
        return;
      }
      client = c;
      onListening();
    } catch (err) {
      log.warn({ err: (err as Error).message }, `${name}: cannot listen; retrying`);
      await c.end().catch(() => {});
      retry();
    }
  };

  void connect();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
