import { deliverMessage } from '../../domain/webhooks/deliver.ts';
import type { DeliveryClient } from '../../domain/webhooks/http-client.ts';
import { createDeliveryClient } from '../../domain/webhooks/http-client.ts';
import { warnIfDevelopmentKey } from '../../domain/webhooks/secrets.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';

const clients = new WeakMap<WorkerDeps, DeliveryClient>();

/**
 * The worker's one HTTP client (made on first use), shared by dispatch-event (first attempts)
 * and deliver-webhook (retries), so connections stay alive and pooled per host across jobs.
 */
export function deliveryClientOf(deps: WorkerDeps): DeliveryClient {
  let client = clients.get(deps);
  if (!client) {
    client = createDeliveryClient({
      allowPrivate: deps.config.webhookAllowPrivateTargets,
      dnsServers: deps.config.dnsServers,
      caFile: deps.config.webhookCaFile,
    });
    clients.set(deps, client);
  }
  return client;
}

/** One attempt of one webhook message: retries, test events and attempts revived by the sweeper. */
export function deliverWebhookTask(deps: WorkerDeps): TypedTask<'deliver-webhook'> {
  warnIfDevelopmentKey(deps.config, deps.log);
  return async (payload) => {
    await deliverMessage({ db: deps.db, config: deps.config, now: deps.now, client: deliveryClientOf(deps), log: deps.log }, payload);
  };
}
