import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import type { Payload } from '../../db/jobs.ts';
import { enqueue } from '../../db/jobs.ts';
import * as deliveries from '../../db/queries/webhook-deliveries.ts';
import type { OpenedAttempt } from '../../db/queries/webhook-deliveries.ts';
import { recordAttemptFailure } from '../../db/queries/webhooks.ts';
import { limit } from '../../lib/limit.ts';
import { webhookAttemptDuration, webhookAttempts } from '../../metrics.ts';
import type { AttemptOutcome, DeliveryClient } from './http-client.ts';
import { deliveryJobKey, newDeliveryId } from './ids.ts';
import { nextAttemptAt } from './schedule.ts';
import type { Sends } from './sends.ts';
import { signingKey } from './secrets.ts';
import { recordSuccess } from './success-batch.ts';
import { sign } from './signature.ts';

/** Failed attempts in a row (across events) that disable a webhook. */
export const AUTO_DISABLE_AFTER = 10;
export const INTERRUPTED_ERROR =
  'interrupted: the worker stopped during this attempt, so its outcome is unknown; the attempt is made again';

export interface DeliverDeps {
  db: Pool;
  config: Config;
  now: () => Date;
  client: DeliveryClient;
  log: Logger;
  /** This process's sends in flight: an attempt is started there, not awaited (sends.ts). */
  sends: Sends;
  /** The worker pool that sends (each attempt's `sent_by`), or null outside a worker. */
  sentBy: string | null;
}

/** A 'deliver-webhook' job's payload: the message and the schedule position (1-based) it makes; a passed position does nothing. */
export type DeliverPayload = Payload<'deliver-webhook'>;

/**
 * The statements that open attempts (the fan-out's, a retry's) run at most 8 at a time per
 * process. Each one's foreign-key checks lock its webhook's row, and an organization's events
 * all go to the same few webhooks: with the worker's 64 slots opening attempts together, the
 * backends queued on that row's page (multixacts of KEY SHARE locks) and a 2-core machine
 * drained a backlog at 470-590 events/s; with 8 at a time, 780-860 (docs/webhooks.md,
 * Performance). A job takes its opening slot first, then its place among the sends in flight
 * (sends.ts), then opens: so at most 8 fan-outs hold a place while they open, which bounds how
 * far their other subscribers take the sends past WEBHOOK_MAX_SENDS.
 */
export const openingSlot = limit(8);

/**
 * Opens an attempt: its `pending` record is committed before any byte is sent, so a worker that
 * dies mid-attempt leaves a trace the sweeper (sweep.ts) finds and acts on.
 */
async function openAttempt(deps: DeliverDeps, p: DeliverPayload): Promise<OpenedAttempt | null> {
  const opened = await deliveries.openAttempt(deps.db, {
    messageId: p.messageId,
    position: p.position,
    deliveryId: newDeliveryId(),
    interruptedError: INTERRUPTED_ERROR,
    sentBy: deps.sentBy,
  });
  if (!opened) return null;
  const { message, target, deliveryId } = opened;
  if (deliveryId) return { message, target, deliveryId };
  // Not opened: either a stale job (the message moved on), or a disabled webhook,
  // whose pending retries stop (a test event is the exception: see test-event.ts).
  if (message.status === 'pending' && message.next_position === p.position)
    await deliveries.abandonMessage(deps.db, message.id, p.position);
  return null;
}

/** A failed attempt: count it, then a retry at the schedule's delay, or give up. */
async function closeFailedAttempt(deps: DeliverDeps, p: DeliverPayload, s: OpenedAttempt, outcome: AttemptOutcome): Promise<void> {
  const { message, target, deliveryId } = s;
  const key = deliveryJobKey(message.id);
  await transaction(deps.db, async (tx) => {
    const current = await deliveries.lockMessage(tx, message.id);
    const finish = (next: Date | null) =>
      deliveries.finishAttempt(tx, deliveryId, {
        status: 'failed',
        response_status: outcome.responseStatus,
        duration_ms: outcome.durationMs,
        error: outcome.error,
        next_attempt_at: next,
      });
    // Overtaken by the sweeper (this worker stalled past its limit): record what happened, decide nothing.
    if (!current || current.status !== 'pending' || current.next_position !== p.position) {
      await finish(null);
      return;
    }
    // a test attempt counts too (decisions §5: failed attempts count across events, any success resets)
    const reason = `disabled after ${AUTO_DISABLE_AFTER} consecutive failed delivery attempts; last error: ${outcome.error ?? 'unknown'}`;
    const stillActive = (await recordAttemptFailure(tx, target.id, AUTO_DISABLE_AFTER, reason.slice(0, 500)))?.is_active ?? false;
    const next = message.is_test || !stillActive ? null : nextAttemptAt(deps.config.webhookRetrySchedule, p.position, deps.now());
    await finish(next);
    if (next) {
      await deliveries.updateMessage(tx, message.id, 'pending', p.position + 1);
      await enqueue(
        tx,
        'deliver-webhook',
        { messageId: message.id, position: p.position + 1 },
        { jobKey: key, runAt: next, maxAttempts: 25 },
      );
    } else {
      await deliveries.updateMessage(tx, message.id, 'failed', p.position);
    }
  });
}

/**
 * One attempt of one message: opened once this process has an opening slot and a place among its
 * sends in flight, then sent there (resolves once the send has started). The secret is read and the body signed at the attempt, so a
 * rotation applies to every attempt made after it; `webhook-id` is the message id on every
 * attempt; `webhook-timestamp` is the attempt's time.
 */
export async function deliverMessage(deps: DeliverDeps, p: DeliverPayload): Promise<void> {
  await openingSlot(() =>
    deps.sends.openAndSend(
      async () => {
        const started = await openAttempt(deps, p);
        return started ? [started] : [];
      },
      (started) => sendOpenedAttempt(deps, p.position, started),
    ),
  );
}

/**
 * Sends an attempt whose `pending` record is committed (by openAttempt, or by the fan-out for
 * first attempts) and records its outcome.
 */
export async function sendOpenedAttempt(deps: DeliverDeps, position: number, started: OpenedAttempt): Promise<void> {
  const { message, target } = started;
  const at = deps.now();
  let outcome: AttemptOutcome;
  try {
    const signature = sign(signingKey(target.secret_encrypted, deps.config.webhookSecretKey), message.id, at, message.body);
    outcome = await deps.client.send({
      url: target.url,
      body: message.body,
      headers: { 'webhook-id': message.id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
    });
  } catch (err) {
    // e.g. WEBHOOK_SECRET_KEY changed since the secret was stored: a failed attempt, not a crash loop.
    outcome = { ok: false, responseStatus: null, durationMs: 0, error: `not sent: ${(err as Error).message}` };
  }
  const p = { messageId: message.id, position };
  observeAttempt(deps.log, started, position, outcome);
  if (!outcome.ok) return closeFailedAttempt(deps, p, started, outcome);
  await recordSuccess(deps.db, {
    deliveryId: started.deliveryId,
    messageId: message.id,
    position,
    webhookId: target.id,
    responseStatus: outcome.responseStatus ?? 200,
    durationMs: outcome.durationMs,
  });
}

/** One log line and the webhook metrics for each attempt, success or failure. */
function observeAttempt(log: Logger, { message, target, deliveryId }: OpenedAttempt, attempt: number, outcome: AttemptOutcome): void {
  const label = { outcome: outcome.ok ? 'success' : 'failure' };
  webhookAttempts.inc(label);
  webhookAttemptDuration.observe(label, outcome.durationMs / 1000);
  const fields = {
    webhookId: target.id,
    messageId: message.id,
    eventId: message.event_id,
    eventType: message.event_type,
    deliveryId,
    attempt,
    responseStatus: outcome.responseStatus,
    durationMs: outcome.durationMs,
    ...(outcome.ok ? {} : { error: outcome.error }),
  };
  if (outcome.ok) log.info(fields, 'webhook attempt succeeded');
  else log.warn(fields, 'webhook attempt failed');
}
