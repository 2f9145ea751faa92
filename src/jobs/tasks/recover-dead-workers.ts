import type { WorkerDeps } from '../deps.ts';
import { recoverDeadWorkers } from '../heartbeat.ts';
import type { TypedTask } from '../registry.ts';

/** Every minute (crontab in src/jobs/worker.ts), a backstop to every worker's own check every 2 s: see startHeartbeat. */
export function recoverDeadWorkersTask(deps: WorkerDeps): TypedTask<'recover-dead-workers'> {
  return async () => {
    const pools = await recoverDeadWorkers(deps.db);
    if (pools.length > 0) deps.log.warn({ pools }, 'unlocked the jobs of worker processes that stopped');
  };
}
