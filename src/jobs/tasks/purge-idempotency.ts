import { purgeOlderThan24h } from '../../db/queries/idempotency-keys.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';

/** Hourly (crontab in src/jobs/worker.ts): Idempotency-Key records expire after 24 hours. */
export function purgeIdempotency(deps: WorkerDeps): TypedTask<'purge-idempotency'> {
  return async () => {
    const removed = await purgeOlderThan24h(deps.db);
    if (removed > 0) deps.log.info({ removed }, 'purged expired idempotency keys');
  };
}
