import { EventEmitter } from 'node:events';
import type { Runner } from 'graphile-worker';
import { Logger as QueueLogger, parseCrontab, run } from 'graphile-worker';
import type { WorkerDeps } from './deps.ts';
import { jobsFailed, observePool, observeQueue } from '../metrics.ts';
import { startHeartbeat } from './heartbeat.ts';
import { buildTaskList } from './task-list.ts';

const CRONTAB = ['0 * * * * purge-idempotency ?fill=2h', '* * * * * recover-dead-workers', '* * * * * vacuum-job-table'].join('\n');

/** graphile-worker's log lines go through our pino logger, so they carry the same fields. */
function queueLogger(deps: WorkerDeps): QueueLogger {
  return new QueueLogger((scope) => (level, message, meta) => {
    const fields = { queue: scope, ...(meta ?? {}) };
    if (level === 'error') deps.log.error(fields, message);
    else if (level === 'warning') deps.log.warn(fields, message);
    else deps.log.debug(fields, message);
  });
}

/**
 * Starts the job worker. Stopping it lets running jobs finish; jobs it has not started go back to
 * the queue. The jobs of a process that died (kill -9, lost machine) are unlocked by any live
 * worker within about 15 s, once the advisory lock its liveness connection held has been free
 * for 10 s (src/jobs/heartbeat.ts), rather than after graphile-worker's 4-hour lock timeout.
 */
export async function startWorker(deps: WorkerDeps): Promise<Runner> {
  // graphile-worker announces its pool (the `locked_by` of its jobs) through these events
  const events = new EventEmitter();
  // a failed attempt (graphile-worker retries it with backoff until its attempts run out)
  events.on('job:error', ({ job }: { job: { task_identifier: string } }) => jobsFailed.inc({ task: job.task_identifier }));
  observePool('worker', deps.db);
  observeQueue(deps.db);
  const heartbeat = startHeartbeat(deps.db, events, deps.log);
  // the lock is held before the pool fetches its first job
  await heartbeat.ready;
  const runner = await run({
    events,
    pgPool: deps.db,
    concurrency: deps.config.workerConcurrency,
    noHandleSignals: true,
    // New jobs arrive through LISTEN/NOTIFY within milliseconds. A job scheduled for later (a
    // webhook retry: 1 s, 5 s, ...) is only found by a poll, so the poll is short enough for the
    // first retry to keep "about 1 s"; an idle poll is one indexed query.
    pollInterval: 500,
    preset: {
      worker: {
        // Under load (2 jobs per booking, routing and mail; 4 when webhooks subscribe) one query fetches and locks a batch of jobs
        // instead of each of the `concurrency` slots racing for one job per query, and
        // completions made in the same tick are deleted together. A crash loses nothing: a
        // locked job that was not completed runs again once a live worker unlocks it (heartbeat.ts),
        // exactly as a job that finished just before its completion query always could.
        localQueue: { size: deps.config.workerConcurrency * 2 },
        completeJobBatchDelay: 0,
      },
    },
    taskList: buildTaskList(deps),
    parsedCronItems: parseCrontab(CRONTAB),
    logger: queueLogger(deps),
  }).catch(async (err: unknown) => {
    await heartbeat.stop();
    throw err;
  });
  const stop = runner.stop;
  // a process that stops cleanly hands its jobs back itself; its heartbeat goes with it
  runner.stop = async (reason?: string) => {
    try {
      await stop(reason);
    } finally {
      await heartbeat.stop();
    }
  };
  return runner;
}
