import type { Db } from '../db/pool.ts';

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

/**
 * Enqueues a job with graphile-worker's SQL function, on the caller's connection: called with
 * a transaction, the job exists exactly when the change that caused it commits.
 */
export async function addJob(db: Db, task: string, payload: unknown, opts: AddJobOptions = {}): Promise<void> {
  await db.query(
    `select graphile_worker.add_job($1, $2::json, queue_name => $3, run_at => $4, max_attempts => $5, job_key => $6,
            priority => $7)`,
    [task, JSON.stringify(payload ?? {}), opts.queueName ?? null, opts.runAt ?? null, opts.maxAttempts ?? 25, opts.jobKey ?? null, opts.priority ?? 0],
  );
}
