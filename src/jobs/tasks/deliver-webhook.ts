import type { JobHelpers } from 'graphile-worker';
import type { DeliverDeps } from '../../domain/webhooks/deliver.ts';
import { deliverMessage } from '../../domain/webhooks/deliver.ts';
import type { DeliveryClient } from '../../domain/webhooks/http-client.ts';
import { createDeliveryClient } from '../../domain/webhooks/http-client.ts';
import { warnIfDevelopmentKey } from '../../domain/webhooks/secrets.ts';
import type { Sends } from '../../domain/webhooks/sends.ts';
import { createSends } from '../../domain/webhooks/sends.ts';
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

const sends = new WeakMap<WorkerDeps, Sends>();

/**
 * The worker's webhook sends in flight (WEBHOOK_MAX_SENDS at most), shared by both tasks; a
 * stopping worker waits for them (src/jobs/worker.ts).
 */
export function webhookSendsOf(deps: WorkerDeps): Sends {
  let inFlight = sends.get(deps);
  if (!inFlight) {
    inFlight = createSends(deps.config.webhookMaxSends, deps.log);
    sends.set(deps, inFlight);
  }
  return inFlight;
}

/** What an attempt made by this job needs; its sender is the pool running the job. */
export function deliverDepsOf(deps: WorkerDeps, helpers: JobHelpers): DeliverDeps {
  return {
    db: deps.db,
    config: deps.config,
    now: deps.now,
    client: deliveryClientOf(deps),
    log: deps.log,
    sends: webhookSendsOf(deps),
    sentBy: helpers.job.locked_by,
  };
}

/** One attempt of one webhook message: retries, test events and attempts revived by the sweeper. */
export function deliverWebhookTask(deps: WorkerDeps): TypedTask<'deliver-webhook'> {
  warnIfDevelopmentKey(deps.config, deps.log);
  return async (payload, helpers) => {
    await deliverMessage(deliverDepsOf(deps, helpers), payload);
  };
}
