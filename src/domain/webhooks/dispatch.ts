import type { Tx } from '../../db/pool.ts';
import { fanOutAndOpen } from '../../db/queries/webhook-deliveries.ts';
import { enqueue } from '../../db/jobs.ts';
import type { DeliverDeps } from './deliver.ts';
import { openingSlot, sendOpenedAttempt } from './deliver.ts';
import { BROADCAST_EVENTS } from './events.ts';
import { deliveryJobKey, newDeliveryIdBase, newMessageIdBase } from './ids.ts';
import type { WebhookMessageRow } from '../../db/schema.ts';

/** The delivery body: the outbox event as this subscription receives it. */
export function messageBody(event: { type: string; timestamp: string; data: unknown }, webhookId: string, test = false): string {
  return JSON.stringify({
    event: event.type,
    timestamp: event.timestamp,
    webhook_id: webhookId,
    ...(test ? { test: true } : {}),
    data: event.data,
  });
}

/** Queues the first attempt of each new message; its job key is the message's for its whole life. */
export async function enqueueFirstAttempts(tx: Tx, messages: WebhookMessageRow[]): Promise<void> {
  for (const m of messages) {
    await enqueue(tx, 'deliver-webhook', { messageId: m.id, position: 1 }, { jobKey: deliveryJobKey(m.id), maxAttempts: 25 });
  }
}

/**
 * The fan-out of one outbox event: one message per matching active subscription of the event's
 * organization and mode, each with its first attempt opened, in one statement (one round trip,
 * atomic; safe to run twice: a message exists once per (event, subscription), and a second run
 * opens nothing). BOOKING_UPDATED goes to every active subscription (see events.ts).
 *
 * The first attempts are then started here, side by side, among the process's sends in flight
 * (sends.ts), instead of by one queued job each: that halves the queue's work per event, and the
 * job ends once they have started, so a slow receiver holds no job slot. Nothing is lost that a
 * job would give: each attempt's `pending` record, naming the pool that sends it, is committed
 * before it is sent, so if this worker dies the sweeper (sweep.ts) queues a job for it, exactly as
 * for a delivery job cut off mid-attempt; a failed first attempt queues its retry job as usual.
 * Returns the number of messages made.
 */
export async function dispatchEvent(deps: DeliverDeps, eventId: string): Promise<number> {
  return openingSlot(() =>
    deps.sends.openAndSend(
      () => fanOutAndOpen(deps.db, eventId, newMessageIdBase(), newDeliveryIdBase(), [...BROADCAST_EVENTS], deps.sentBy),
      (started) => sendOpenedAttempt(deps, 1, started),
    ),
  );
}
