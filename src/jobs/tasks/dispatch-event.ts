import type { Task } from 'graphile-worker';
import { dispatchEvent } from '../../domain/webhooks/dispatch.ts';
import type { WorkerDeps } from '../deps.ts';

interface Payload {
  eventId: string;
}

/** Enqueued by recordEvent with the change that caused the event: fans it out to its subscriptions. */
export function dispatchEventTask(deps: WorkerDeps): Task {
  return async (payload) => {
    const { eventId } = payload as Payload;
    const queued = await dispatchEvent(deps.db, eventId);
    if (queued > 0) deps.log.debug({ eventId, queued }, 'webhook deliveries queued');
  };
}
