import type { Pool, Tx } from '../../db/pool.ts';
import type { MessageRow } from '../../db/queries/webhook-deliveries.ts';
import { fanOutEvent } from '../../db/queries/webhook-deliveries.ts';
import { addJob } from '../../jobs/queue.ts';
import { BROADCAST_EVENTS } from './events.ts';
import { MESSAGE_JOB_KEY_PREFIX, deliveryJobKey, newMessageIdBase } from './ids.ts';

/** The delivery body: the outbox event as this subscription receives it. */
export function messageBody(event: { type: string; timestamp: string; data: unknown }, webhookId: string, test = false): string {
  return JSON.stringify({ event: event.type, timestamp: event.timestamp, webhook_id: webhookId, ...(test ? { test: true } : {}), data: event.data });
}

/** Queues the first attempt of each new message; its job key is the message's for its whole life. */
export async function enqueueFirstAttempts(tx: Tx, messages: MessageRow[]): Promise<void> {
  for (const m of messages) {
    await addJob(tx, 'deliver-webhook', { messageId: m.id, position: 1 }, { jobKey: deliveryJobKey(m.id), maxAttempts: 25 });
  }
}

/**
 * The fan-out of one outbox event: one message and one delivery job per matching active
 * subscription of the event's organization and mode, so a slow receiver delays no other.
 * BOOKING_UPDATED goes to every active subscription (see events.ts). One statement, so one
 * round trip and atomic; safe to run twice: a message exists once per (event, subscription).
 */
export function dispatchEvent(db: Pool, eventId: string): Promise<number> {
  return fanOutEvent(db, eventId, newMessageIdBase(), [...BROADCAST_EVENTS], MESSAGE_JOB_KEY_PREFIX);
}
