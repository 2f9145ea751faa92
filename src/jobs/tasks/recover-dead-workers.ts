import type { Task } from 'graphile-worker';
import type { WorkerDeps } from '../deps.ts';
import { recoverDeadWorkers } from '../heartbeat.ts';

/** Every minute (crontab in src/jobs/worker.ts): see recoverDeadWorkers. */
export function recoverDeadWorkersTask(deps: WorkerDeps): Task {
  return async () => {
    const pools = await recoverDeadWorkers(deps.db);
    if (pools.length > 0) deps.log.warn({ pools }, 'unlocked the jobs of worker processes that stopped');
  };
}
