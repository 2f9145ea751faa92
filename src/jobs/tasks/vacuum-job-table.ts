import { vacuumJobTable } from '../../db/queries/job-table.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';

/**
 * Every minute (crontab in src/jobs/worker.ts): the job table does not wait for autovacuum,
 * which may be off or too slow for a table that turns over hundreds of rows a second
 * (vacuumJobTable says what that costs). With autovacuum on it finds little to do.
 */
export function vacuumJobTableTask(deps: WorkerDeps): TypedTask<'vacuum-job-table'> {
  return async () => {
    const notices = await vacuumJobTable(deps.db);
    if (notices.length > 0) deps.log.warn({ notices }, 'the job table was not vacuumed');
  };
}
