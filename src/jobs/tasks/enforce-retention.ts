import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/pool.ts';
import type { RetentionTarget } from '../../db/queries/retention.ts';
import { deleteOldest, underRetentionLock } from '../../db/queries/retention.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';

const DAY = 86_400;

/**
 * The tables that only grow, one row each, with what must never go (docs/operations.md, Retention):
 * - an event whose fan-out job is still queued (graphile-worker's job table is small: jobs are
 *   deleted when done, so the set of those event ids is read once per statement, hashed);
 * - a webhook message still `pending` (attempts to come); a settled one goes with its
 *   delivery history (ON DELETE CASCADE), so the history never shows half a message;
 * - an email still `pending` (not sent yet);
 * - an Idempotency-Key record younger than the 24 hours the API promises (not configurable);
 * - a calendar busy block that has not ended two days ago: the sync window starts at the start
 *   of yesterday (UTC), so an older one can no longer block a slot (not configurable).
 */
export function retentionTargets(config: Config): RetentionTarget[] {
  const r = config.retention;
  return [
    {
      table: 'booking_events',
      age: 'created_at',
      keepSeconds: r.eventsDays * DAY,
      done: `id not in (select j.payload->>'eventId' from graphile_worker._private_jobs j
                          join graphile_worker._private_tasks k on k.id = j.task_id
                         where k.identifier = 'dispatch-event' and j.payload->>'eventId' is not null)`,
    },
    { table: 'webhook_messages', age: 'created_at', keepSeconds: r.webhookDeliveriesDays * DAY, done: `status <> 'pending'` },
    { table: 'email_outbox', age: 'created_at', keepSeconds: r.emailsDays * DAY, done: `status <> 'pending'` },
    { table: 'idempotency_keys', age: 'created_at', keepSeconds: DAY, done: 'true' },
    { table: 'calendar_busy', age: 'end_time', keepSeconds: 2 * DAY, done: 'true' },
  ];
}

export interface RetentionLimits {
  batchSize: number;
  /** A run stops starting batches after this long; the next run goes on where it stopped. */
  budgetMs: number;
  /**
   * After a full batch (more may follow), wait this many times as long as the batch took
   * before the next one, so a run working off a backlog leaves the database and the process
   * to live traffic part of the time. 0: no rest.
   */
  restRatio: number;
  /** How to wait (tests record the rests instead). */
  sleep?: (ms: number) => Promise<void>;
}

export interface RetentionResult {
  /** Rows deleted per table. */
  deleted: Record<string, number>;
  batches: number;
  /** False when the time budget ran out with old rows perhaps left. */
  complete: boolean;
}

/**
 * Deletes what the targets no longer keep, table by table, in batches of at most `batchSize`
 * rows, each batch one statement and its own transaction on the pool: no lock is held between
 * batches, and none long. A table is done when a batch comes back short.
 */
export async function enforceRetention(db: Db, targets: readonly RetentionTarget[], limits: RetentionLimits): Promise<RetentionResult> {
  const rest = limits.sleep ?? sleep;
  const started = performance.now();
  const result: RetentionResult = { deleted: {}, batches: 0, complete: true };
  for (const target of targets) {
    result.deleted[target.table] = 0;
    for (;;) {
      if (performance.now() - started > limits.budgetMs) {
        result.complete = false;
        return result;
      }
      const batchStarted = performance.now();
      const n = await deleteOldest(db, target, limits.batchSize);
      result.batches++;
      result.deleted[target.table] += n;
      if (n < limits.batchSize) break;
      if (limits.restRatio > 0) await rest((performance.now() - batchStarted) * limits.restRatio);
    }
  }
  return result;
}

/** A run's time budget: well inside the crontab's 10 minutes, so two runs never overlap. */
const BUDGET_MS = 120_000;

/**
 * Rest as long as each full batch took: a run that works off a backlog uses at most about half
 * of one database connection, instead of all of it for the whole budget. A first run on an old
 * installation can find millions of rows past retention (the scale bench's 1 M bookings come
 * with about 5 M outbox rows, 95 % of them older than 30 days): at the measured 1 ms per 1,000
 * emails and 8 ms per 1,000 webhook messages, back to back that is tens of seconds of one core
 * of PostgreSQL, taken from routing and the API on a small machine. The steady state (ten
 * minutes' worth of rows, one or two batches a table) is unaffected.
 */
const REST_RATIO = 1;

/**
 * Every 10 minutes (crontab in src/jobs/worker.ts). A run that finds another one under way (one
 * enqueued by hand meeting the crontab's) does nothing: the one under way deletes the same rows.
 */
export function enforceRetentionTask(deps: WorkerDeps): TypedTask<'enforce-retention'> {
  return async () => {
    const result = await underRetentionLock(deps.db, () =>
      enforceRetention(deps.db, retentionTargets(deps.config), {
        batchSize: deps.config.retention.batchSize,
        budgetMs: BUDGET_MS,
        restRatio: REST_RATIO,
      }),
    );
    if (!result) {
      deps.log.info('retention: another run is under way; this one does nothing');
      return;
    }
    const total = Object.values(result.deleted).reduce((a, b) => a + b, 0);
    if (total > 0 || !result.complete) deps.log.info({ ...result }, 'retention: deleted rows past their retention');
  };
}
