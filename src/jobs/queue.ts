import type { Db, Tx } from '../db/pool.ts';
import { batchUntilCommit, prepared } from '../db/pool.ts';

export interface AddJobOptions {
  /** Earliest time to run. */
  runAt?: Date;
  maxAttempts?: number;
  /** Jobs with the same key replace each other while pending. */
  jobKey?: string;
  /** Jobs of one queue run one at a time, in order. */
  queueName?: string;
  priority?: number;
}

interface JobSpec {
  task: string;
  payload: unknown;
  opts: AddJobOptions;
}

const JOBS = Symbol('graphile-worker jobs');

/**
 * Enqueues a job with graphile-worker's SQL functions, on the caller's connection: called with
 * a transaction, the job exists exactly when the change that caused it commits. Inside
 * transaction() the jobs (without a job key) are collected and added with one `add_jobs` call
 * right before COMMIT: each add costs a good part of a millisecond of database time and a
 * NOTIFY, and a booking change may enqueue several.
 */
export async function addJob(db: Db, task: string, payload: unknown, opts: AddJobOptions = {}): Promise<void> {
  const spec: JobSpec = { task, payload, opts };
  if (opts.jobKey === undefined && batchUntilCommit(db, JOBS, spec, flushJobs)) return;
  await db.query(prepared(
    `select graphile_worker.add_job($1, $2::json, queue_name => $3, run_at => $4, max_attempts => $5, job_key => $6,
            priority => $7)`,
    [task, JSON.stringify(payload ?? {}), opts.queueName ?? null, opts.runAt ?? null, opts.maxAttempts ?? 25, opts.jobKey ?? null, opts.priority ?? 0],
  ));
}

/** The transaction's keyless jobs, in one call (enqueue_jobs, migration 062) made as its last statement. */
async function flushJobs(tx: Tx, specs: JobSpec[]): Promise<void> {
  await tx.query(prepared(
    'select enqueue_jobs($1::text[], $2::json[], $3::text[], $4::timestamptz[], $5::int[], $6::int[])',
    [
      specs.map((s) => s.task),
      specs.map((s) => JSON.stringify(s.payload ?? {})),
      specs.map((s) => s.opts.queueName ?? null),
      specs.map((s) => s.opts.runAt ?? null),
      specs.map((s) => s.opts.maxAttempts ?? 25),
      specs.map((s) => s.opts.priority ?? 0),
    ],
  ));
}
