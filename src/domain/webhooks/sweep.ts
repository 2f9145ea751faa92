import type { Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import { anyWebhooks, stuckMessages } from '../../db/queries/webhook-deliveries.ts';
import type { Db } from '../../db/pool.ts';
import { enqueue } from '../../db/jobs.ts';
import { ATTEMPT_TIMEOUT_MS } from './http-client.ts';
import { MESSAGE_JOB_KEY_PREFIX, deliveryJobKey } from './ids.ts';

/**
 * An attempt pending this long has outlived its 5 s limit by far. It is revived only when no live
 * worker is sending it (stuckMessages): neither the pool named as its sender nor one holding its
 * job is alive, or its sender has had it for longer than SENDER_TRUSTED_SECONDS.
 */
export const STUCK_AFTER_SECONDS = 3 * (ATTEMPT_TIMEOUT_MS / 1000);
/**
 * How long an attempt is left to the live pool that sends it (`sent_by`): a send ends within its
 * 5 s limit, so an attempt still pending after a minute is one whose outcome could not be recorded
 * (the database was away when it ended), and it is made again.
 */
export const SENDER_TRUSTED_SECONDS = 60;
export const SWEEP_EVERY_SECONDS = 5;
export const SWEEPER_JOB_KEY = 'webhook-sweeper';

/** Starts (or restarts) the sweeper's chain; called when a webhook is created. */
export async function ensureSweeper(db: Db, now: Date): Promise<void> {
  await enqueue(
    db,
    'sweep-webhook-deliveries',
    {},
    { jobKey: SWEEPER_JOB_KEY, runAt: new Date(now.getTime() + SWEEP_EVERY_SECONDS * 1000), maxAttempts: 25 },
  );
}

/**
 * Finds messages whose attempt was cut off by a dead worker (pending past STUCK_AFTER_SECONDS, its
 * sender dead or past SENDER_TRUSTED_SECONDS, its job not held by a live worker) and queues a
 * fresh job for each at the same schedule position (queuing under the message's key also retires
 * the dead worker's job). The new job records the cut-off attempt as interrupted and makes it
 * again. Then the sweeper queues its own next run, while any webhook exists. Returns how many
 * messages it revived.
 */
export async function sweepStuckDeliveries(db: Pool, now: Date): Promise<number> {
  const stuck = await stuckMessages(
    db,
    STUCK_AFTER_SECONDS,
    { messageKeyPrefix: MESSAGE_JOB_KEY_PREFIX, dispatchTask: 'dispatch-event' },
    SENDER_TRUSTED_SECONDS,
  );
  if (stuck.length > 0) {
    await transaction(db, async (tx) => {
      for (const m of stuck) {
        await enqueue(
          tx,
          'deliver-webhook',
          { messageId: m.message_id, position: m.next_position },
          { jobKey: deliveryJobKey(m.message_id), maxAttempts: 25 },
        );
      }
    });
  }
  if (await anyWebhooks(db)) await ensureSweeper(db, now);
  return stuck.length;
}
