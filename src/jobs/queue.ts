import type { Db, Tx } from '../db/pool.ts';
import { batchUntilCommit, prepared } from '../db/pool.ts';
import type { AddJobOptions, JobSpec } from '../db/queries/job-specs.ts';
import { jobSpecsJson } from '../db/queries/job-specs.ts';

export type { AddJobOptions };

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

/** The transaction's keyless jobs, in one call (src/db/functions/enqueue_jobs.sql) made as its last statement. */
async function flushJobs(tx: Tx, specs: JobSpec[]): Promise<void> {
  await tx.query(prepared('select enqueue_jobs(jobs => $1::jsonb)', [jobSpecsJson(specs)]));
}
