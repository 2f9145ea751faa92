import { enqueueSync } from '../../domain/calendars/schedule.ts';
import { syncCalendar } from '../../domain/calendars/sync.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';

/**
 * Syncs one connected calendar (docs/calendars.md), then enqueues its next sync
 * CALENDAR_SYNC_INTERVAL seconds later under the calendar's job key: each connected calendar
 * has one periodic job. A failing server is not a failed job (the calendar shows ERROR and the
 * next sync comes as usual); NEEDS_REAUTH ends the chain until the connection is given again.
 * A sync that finds the calendar claimed by another (a second worker process) does nothing.
 */
export function syncCalendarTask(deps: WorkerDeps): TypedTask<'sync-calendar'> {
  return async (payload) => {
    const result = await syncCalendar(deps, payload.calendarId);
    deps.log.debug({ ...result }, 'calendar sync');
    if (result.status === 'NEEDS_REAUTH' || result.status === 'SKIPPED') return;
    await enqueueSync(deps.db, payload.calendarId, new Date(deps.now().getTime() + deps.config.calendarSyncInterval * 1000));
  };
}
