import { dispatchEvent } from '../../domain/webhooks/dispatch.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';
import { deliverDepsOf } from './deliver-webhook.ts';

/**
 * Enqueued (recordEvents, createBooking) with the change that caused the event, when a
 * subscription wants it: fans it out to its
 * subscriptions and starts their first attempts (dispatch.ts says why here and not in jobs).
 */
export function dispatchEventTask(deps: WorkerDeps): TypedTask<'dispatch-event'> {
  return async ({ eventId }, helpers) => {
    const sent = await dispatchEvent(deliverDepsOf(deps, helpers), eventId);
    if (sent > 0) deps.log.debug({ eventId, sent }, 'webhook first attempts made');
  };
}
