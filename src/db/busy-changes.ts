import type { Logger } from 'pino';
import type { ConfigListener } from './config-changes.ts';
import { listenOnChannel } from './config-changes.ts';
import type { Db } from './pool.ts';
import { exec } from './pool.ts';

const CHANNEL = 'booking_service_busy';

/**
 * Tells every running process that these members' busy time changed outside a booking (a
 * calendar sync), so that caches of availability and free/busy kept in process memory drop
 * their answers at once. Inside a transaction it is delivered at commit, and not at all on
 * rollback. The payload is the member ids, comma-separated (a NOTIFY payload holds 8000 bytes:
 * about 200 ids, which one sync, of one member's calendar, never nears).
 */
export async function announceBusyChange(db: Db, memberIds: readonly string[]): Promise<void> {
  if (memberIds.length === 0) return;
  await exec(db, 'select pg_notify($1, $2)', [CHANNEL, memberIds.join(',')]);
}

/**
 * Calls `onChange` with the member ids of every announced change (see listenOnChannel), and
 * `onListening` each time LISTEN takes effect. Announcements made while the connection was lost
 * are missed: the cache's own 60 s expiry then bounds how long an answer can be stale.
 */
export function listenForBusyChanges(
  url: string,
  onChange: (memberIds: string[]) => void,
  log: Logger,
  onListening: () => void = () => {},
): ConfigListener {
  return listenOnChannel(url, CHANNEL, (payload) => onChange(payload.split(',').filter(Boolean)), onListening, log, 'busy time listener');
}
