import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { Db, Tx } from './pool.ts';
import { batchUntilCommit, prepared } from './pool.ts';

const Id = (description: string) => Type.String({ minLength: 1, description });

/**
 * Every background job, by task name, with the payload it carries: the one list of them.
 * Producers enqueue through `enqueue` below, which type-checks the payload against this map;
 * the worker's tasks (src/jobs/registry.ts, src/jobs/task-list.ts) decode every payload with
 * the same schema before acting and refuse a malformed one. A name not listed here cannot be
 * enqueued and has no task. Extra properties are allowed: graphile-worker's cron adds `_cron`.
 */
export const TASKS = {
  /** A DRAFT booking's routing (DRAFT → SCHEDULED or PENDING_CONFIRMATION); enqueued by POST /bookings. */
  'route-booking': Type.Object({ bookingId: Id('the booking in DRAFT') }),
  /**
   * The outbox emails of one booking change, or the first emails of a routing batch, up to 8 sent at
   * once. `emailId` (one row) is the shape of jobs queued by versions before one job per change;
   * they are still accepted.
   */
  'send-email': Type.Union([
    Type.Object({ emailIds: Type.Array(Id('an email_outbox row'), { minItems: 1 }) }),
    Type.Object({ emailId: Id('an email_outbox row') }),
  ]),
  /** The fan-out of one outbox event to its subscriptions, with their first delivery attempts. */
  'dispatch-event': Type.Object({ eventId: Id('a booking_events row') }),
  /** One delivery attempt of one webhook message: a retry, a test event, an attempt the sweeper revived. */
  'deliver-webhook': Type.Object({
    messageId: Id('a webhook_messages row'),
    position: Type.Integer({ minimum: 1, description: 'the schedule position (1-based) this job makes; a passed one does nothing' }),
  }),
  /** Revives deliveries cut off by a stopped worker, then queues its own next run while any webhook exists. */
  'sweep-webhook-deliveries': Type.Object({}),
  /** Cron, every 10 minutes: deletes rows past their retention, in batches (docs/operations.md, Retention). */
  'enforce-retention': Type.Object({}),
  /** Cron, every minute: unlocks the jobs of worker processes whose heartbeat stopped. */
  'recover-dead-workers': Type.Object({}),
  /** Cron, every minute: VACUUM of graphile-worker's job table. */
  'vacuum-job-table': Type.Object({}),
  /** One sync of a connected calendar (docs/calendars.md); each sync enqueues the next under the calendar's job key. */
  'sync-calendar': Type.Object({ calendarId: Id('a calendars row with a connection') }),
  /** Cron, every minute: a sync for any connected calendar whose periodic sync was lost. */
  'schedule-calendar-syncs': Type.Object({}),
  /** The write-back of one meeting (its reschedule chain's first booking) to its hosts' calendars. */
  'write-calendar-event': Type.Object({ rootBookingId: Id("the first booking of the meeting's reschedule chain") }),
} as const;

export type TaskName = keyof typeof TASKS;
export type Payload<T extends TaskName> = Static<(typeof TASKS)[T]>;

export interface EnqueueOptions {
  /** Earliest time to run. */
  runAt?: Date;
  /** Attempts before graphile-worker gives up (default 25), backing off exponentially between them. */
  maxAttempts?: number;
  /** Jobs with the same key replace each other while pending. */
  jobKey?: string;
  /** With jobKey: 'replace' (default) takes the new run_at; 'preserve_run_at' keeps a pending job's. */
  jobKeyMode?: 'replace' | 'preserve_run_at';
  /** Jobs of one queue run one at a time, in order. */
  queueName?: string;
  /** Lower runs first (default 0). */
  priority?: number;
}

/** A job to enqueue, as data: for a statement that enqueues it itself (create_booking). */
export interface JobSpec<T extends TaskName = TaskName> {
  task: T;
  payload: Payload<T>;
  opts: EnqueueOptions;
}

/** A JobSpec whose payload the compiler checks against its task's. */
export function jobSpec<T extends TaskName>(task: T, payload: Payload<T>, opts: EnqueueOptions = {}): JobSpec<T> {
  return { task, payload, opts };
}

/** graphile-worker's own default. */
export const DEFAULT_MAX_ATTEMPTS = 25;
const BATCH = Symbol('jobs enqueued at commit');

/**
 * Enqueues a job with graphile-worker's SQL functions on the caller's connection: called with a
 * transaction, the job exists exactly when the change that caused it commits. Inside
 * transaction() the jobs without a job key are collected and added with one `enqueue_jobs` call
 * right before COMMIT: each add costs a good part of a millisecond of database time and a
 * NOTIFY, and a booking change may enqueue several. A keyed job is added at once (it may
 * replace a pending one, which the caller may rely on before it commits).
 */
export async function enqueue<T extends TaskName>(db: Db, task: T, payload: Payload<T>, opts: EnqueueOptions = {}): Promise<void> {
  const spec: JobSpec = { task, payload, opts };
  if (opts.jobKey === undefined && batchUntilCommit(db, BATCH, spec, flush)) return;
  await db.query(
    prepared(
      `select graphile_worker.add_job($1, $2::json, queue_name => $3, run_at => $4, max_attempts => $5, job_key => $6,
            priority => $7, job_key_mode => $8)`,
      [
        task,
        JSON.stringify(payload),
        opts.queueName ?? null,
        opts.runAt ?? null,
        opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        opts.jobKey ?? null,
        opts.priority ?? 0,
        opts.jobKeyMode ?? 'replace',
      ],
    ),
  );
}

/** The transaction's keyless jobs, in one call to enqueue_jobs (src/db/functions/enqueue_jobs.sql) made as its last statement. */
async function flush(tx: Tx, specs: JobSpec[]): Promise<void> {
  await tx.query(prepared('select enqueue_jobs(jobs => $1::jsonb)', [jobSpecsJson(specs)]));
}

/**
 * Jobs as the database function enqueue_jobs and create_booking take them: a JSON array of
 * graphile_worker.job_spec records. Keyless jobs only.
 */
export function jobSpecsJson(specs: readonly JobSpec[]): string {
  return JSON.stringify(
    specs.map((s) => ({
      identifier: s.task,
      payload: s.payload,
      queue_name: s.opts.queueName ?? null,
      run_at: s.opts.runAt ?? null,
      max_attempts: s.opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      priority: s.opts.priority ?? 0,
    })),
  );
}

/**
 * Marks the running job `jobId` as failed for good, as graphile-worker's permanently_fail_jobs
 * does for unlocked ones (attempts = max_attempts): when its task then throws, graphile-worker
 * records the error in last_error, unlocks it and never fetches it again. The row stays, with its
 * payload, for an operator to read (`select * from graphile_worker.jobs where attempts =
 * max_attempts`).
 */
export async function failJobForGood(db: Db, jobId: string): Promise<void> {
  await db.query(prepared('update graphile_worker._private_jobs set attempts = max_attempts where id = $1::bigint', [jobId]));
}
