import type { Task } from 'graphile-worker';
import type { DeliverPayload } from '../../domain/webhooks/deliver.ts';
import { deliverMessage } from '../../domain/webhooks/deliver.ts';
import type { DeliveryClient } from '../../domain/webhooks/http-client.ts';
import { createDeliveryClient } from '../../domain/webhooks/http-client.ts';
import { warnIfDevelopmentKey } from '../../domain/webhooks/secrets.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * One attempt of one webhook message. The HTTP agent is made once per worker, so connections
 * stay alive and pooled per host across jobs.
 */
export function deliverWebhookTask(deps: WorkerDeps): Task {
  let client: DeliveryClient | undefined;
  warnIfDevelopmentKey(deps.config, deps.log);
  return async (payload) => {
    client ??= createDeliveryClient({ allowPrivate: deps.config.webhookAllowPrivateTargets, caFile: deps.config.webhookCaFile });
    await deliverMessage({ db: deps.db, config: deps.config, now: deps.now, client }, payload as DeliverPayload);
  };
}
