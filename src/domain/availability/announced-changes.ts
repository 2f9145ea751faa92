import type { BusyChange } from '../../db/busy-changes.ts';
import type { CalendarBusyCache } from './calendar-busy-cache.ts';
import type { FreeBusyCache } from './freebusy-cache.ts';

/** What an API process keeps of members' busy time between requests. */
export interface BusyCaches {
  calendarBusy: CalendarBusyCache;
  freebusyCache: FreeBusyCache;
}

/**
 * An announced change (src/db/busy-changes.ts), made by any process, applied to this one's caches:
 * a sync's new calendar blocks drop the member's blocks here and the answers built on them (the
 * shared store included: a sync in a worker invalidated nothing); a change of a member's holds
 * drops only what this process keeps in memory, since the process that made it has already
 * invalidated the shared store, if there is one.
 */
export function applyBusyChange(caches: BusyCaches, change: BusyChange): void {
  if (change.memberIds.length === 0) return;
  if (change.kind === 'calendar') {
    caches.calendarBusy.invalidate(change.memberIds);
    void caches.freebusyCache.invalidate(change.memberIds);
  } else {
    caches.freebusyCache.dropLocal(change.memberIds);
  }
}

/** Listening (again): what was announced meanwhile is unknown, so this process's own copies go. */
export function forgetUnheardChanges(caches: BusyCaches): void {
  caches.calendarBusy.clear();
  caches.freebusyCache.dropLocal();
}
