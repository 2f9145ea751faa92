import type { Logger } from 'pino';
import type { ConfigListener } from './config-changes.ts';
import { listenOnChannel } from './config-changes.ts';
import type { Db } from './pool.ts';
import { exec } from './pool.ts';

const CHANNEL = 'booking_service_busy';

/**
 * Tells every running process that these members' busy time changed outside a booking (a
 * calendar sync; a booking's holds announce themselves, see BusyChange), so that caches of
 * availability and free/busy kept in process memory drop their answers at once. Inside a
 * transaction it is delivered at commit, and not at all on rollback. The payload is the member ids, comma-separated (a NOTIFY payload holds 8000 bytes:
 * about 200 ids, which one sync, of one member's calendar, never nears).
 */
export async function announceBusyChange(db: Db, memberIds: readonly string[]): Promise<void> {
  if (memberIds.length === 0) return;
  await exec(db, 'select pg_notify($1, $2)', [CHANNEL, memberIds.join(',')]);
}

/** What an announcement says changed, and for whom. */
export interface BusyChange {
  /**
   * `calendar`: busy time read from the members' calendars (announceBusyChange); `holds`: their
   * bookings' holds (a database trigger on booking_members, src/db/functions/notify_hold_change.sql).
   */
  kind: 'calendar' | 'holds';
  memberIds: string[];
}

const HOLDS = 'holds:';

/** An announcement's payload read: `holds:<id>` from the trigger, else comma-separated ids of a sync. */
export function parseBusyChange(payload: string): BusyChange {
  if (payload.startsWith(HOLDS)) return { kind: 'holds', memberIds: [payload.slice(HOLDS.length)].filter(Boolean) };
  return { kind: 'calendar', memberIds: payload.split(',').filter(Boolean) };
}

/**
 * Calls `onChange` with every announced change (see listenOnChannel), and `onListening` each
 * time LISTEN takes effect. Announcements made while the connection was lost are missed: the
 * listener drops what it keeps on `onListening`, and the cache's own 60 s expiry bounds how long
 * an answer elsewhere can be stale.
 */
export function listenForBusyChanges(
  url: string,
  onChange: (change: BusyChange) => void,
  log: Logger,
  onListening: () => void = () => {},
): ConfigListener {
  return listenOnChannel(url, CHANNEL, (payload) => onChange(parseBusyChange(payload)), onListening, log, 'busy time listener');
}
