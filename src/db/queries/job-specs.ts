/** Options of one graphile-worker job, as src/jobs/queue.ts's addJob takes them. */
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

/** A job to add: the task's name and payload are decided by the TypeScript that enqueues it. */
export interface JobSpec {
  task: string;
  payload: unknown;
  opts: AddJobOptions;
}

/**
 * Jobs as the database function enqueue_jobs (src/db/functions/enqueue_jobs.sql) and
 * create_booking take them: a JSON array of graphile_worker.job_spec records. Keyless jobs only.
 */
export function jobSpecsJson(specs: readonly JobSpec[]): string {
  return JSON.stringify(specs.map((s) => ({
    identifier: s.task,
    payload: s.payload ?? {},
    queue_name: s.opts.queueName ?? null,
    run_at: s.opts.runAt ?? null,
    max_attempts: s.opts.maxAttempts ?? 25,
    priority: s.opts.priority ?? 0,
  })));
}
