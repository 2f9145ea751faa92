import { overdueCalendars } from '../../db/queries/calendar-sync.ts';
import { enqueueSync } from '../../domain/calendars/schedule.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';

/**
 * Every minute (crontab in src/jobs/worker.ts): a connected calendar whose periodic sync has not
 * run for twice the interval (its job was lost: a crash past its attempts, a calendar connected
 * by an older version) gets one again. A pending sync keeps its time.
 */
export function scheduleCalendarSyncsTask(deps: WorkerDeps): TypedTask<'schedule-calendar-syncs'> {
  return async () => {
    const due = await overdueCalendars(deps.db, deps.config.calendarSyncInterval);
    for (const c of due) await enqueueSync(deps.db, c.id, undefined, true);
    if (due.length > 0) deps.log.info({ calendars: due.length }, 'enqueued overdue calendar syncs');
  };
}
