import type { Logger } from 'pino';
import type { ConfigListener } from './config-changes.ts';
import { listenOnChannel } from './config-changes.ts';
import type { Db } from './pool.ts';
import { exec } from './pool.ts';

const CHANNEL = 'booking_service_busy';

/** Ids per announcement: a NOTIFY payload holds under 8000 bytes, and an id with its comma takes 37. */
export const IDS_PER_ANNOUNCEMENT = 200;

/**
 * Tells every running process that these members' busy time changed outside a booking (a
 * calendar sync, or a seed changing their hours, zone, out-of-office or calendars; a booking's
 * holds announce themselves, see BusyChange), so that caches of availability and free/busy drop
 * their answers at once. Inside a transaction it is delivered at commit, and not at all on
 * rollback. The payload is the member ids, comma-separated, IDS_PER_ANNOUNCEMENT at most: a
 * seed changing more members sends several.
 */
export async function announceBusyChange(db: Db, memberIds: readonly string[]): Promise<void> {
  for (let i = 0; i < memberIds.length; i += IDS_PER_ANNOUNCEMENT) {
    await exec(db, 'select pg_notify($1, $2)', [CHANNEL, memberIds.slice(i, i + IDS_PER_ANNOUNCEMENT).join(',')]);
  }
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
