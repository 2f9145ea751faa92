import { sweepStuckDeliveries } from '../../domain/webhooks/sweep.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';

/** Every few seconds while webhooks exist: revives deliveries whose worker died mid-attempt. */
export function sweepWebhookDeliveriesTask(deps: WorkerDeps): TypedTask<'sweep-webhook-deliveries'> {
  return async () => {
    const revived = await sweepStuckDeliveries(deps.db, deps.now());
    if (revived > 0) deps.log.warn({ revived }, 'webhook deliveries interrupted by a stopped worker were queued again');
  };
}
