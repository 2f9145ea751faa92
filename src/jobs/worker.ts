import { EventEmitter } from 'node:events';
import type { Runner } from 'graphile-worker';
import { Logger as QueueLogger, parseCrontab, run } from 'graphile-worker';
import type { WorkerDeps } from './deps.ts';
import { jobsFailed, observePool, observeQueue } from '../metrics.ts';
import { startHeartbeat } from './heartbeat.ts';
import { buildTaskList } from './task-list.ts';
import { webhookSendsOf } from './tasks/deliver-webhook.ts';

// enforce-retention: docs/operations.md, Retention
const CRONTAB = [
  '*/10 * * * * enforce-retention',
  '* * * * * recover-dead-workers',
  '* * * * * vacuum-job-table',
  '* * * * * schedule-calendar-syncs',
].join('\n');

/**
 * graphile-worker's log lines go through our pino logger, so they carry the same fields. While
 * this worker stops (SIGTERM), graphile-worker 0.17 logs its pools' release races under load as
 * errors ("Cannot background something when the queue is already released", "Error occurred
 * during forceful shutdown", six lines a stop): nothing is lost (a job it had fetched and not run
 * goes back to the queue, or is unlocked by a live worker), so they are warnings then, marked
 * `during: "stop"`, and do not set off error alerts.
 */
export function queueLogger(deps: Pick<WorkerDeps, 'log'>, stopping: () => boolean): QueueLogger {
  return new QueueLogger((scope) => (level, message, meta) => {
    const fields = { queue: scope, ...(meta ?? {}) };
    if (level === 'error' && !stopping()) deps.log.error(fields, message);
    else if (level === 'error' || level === 'warning') deps.log.warn(stopping() ? { ...fields, during: 'stop' } : fields, message);
    else deps.log.debug(fields, message);
  });
}

/** The job worker of this process. */
export interface JobWorker {
  /** Settles when the worker has stopped for good (after stop()). */
  promise: Promise<void>;
  /** Lets running jobs finish; jobs not started go back to the queue. */
  stop(): Promise<void>;
}

/** Waits between attempts to start a replacement pool (the database may still be away). */
const RESTART_DELAY_MS = 1000;

/**
 * Starts the job worker. Stopping it lets running jobs finish; jobs it has not started go back to
 * the queue. The jobs of a process that died (kill -9, lost machine) are unlocked by any live
 * worker within about 15 s, once the advisory lock its liveness connection held has been free
 * for 10 s (src/jobs/heartbeat.ts), rather than after graphile-worker's 4-hour lock timeout.
 *
 * graphile-worker 0.17 gives a pool up on the first failed completion of a job (a connection
 * terminated at that moment: "queue is in an inconsistent state; aborting"); its shutdown may
 * then fail too and never settle, which left a process serving with no worker and its fetched
 * jobs locked for good. A pool that shuts down while this worker is not stopping is replaced by
 * a new one in this process, and the old one is marked released, so its jobs are unlocked (by
 * any live worker's next check) and run again.
 */
export async function startWorker(deps: WorkerDeps): Promise<JobWorker> {
  // graphile-worker announces its pool (the `locked_by` of its jobs) through these events
  const events = new EventEmitter();
  // a failed attempt (graphile-worker retries it with backoff until its attempts run out)
  events.on('job:error', ({ job }: { job: { task_identifier: string } }) => jobsFailed.inc({ task: job.task_identifier }));
  observePool('worker', deps.db);
  observeQueue(deps.db);
  const heartbeat = startHeartbeat(deps.db, events, deps.log);
  // the lock is held before the pool fetches its first job
  await heartbeat.ready;
  let stopping = false;
  const launch = () =>
    run({
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
          // Failures batched too: unbatched, a failure whose own query fails (a connection
          // terminated at that moment) is a promise nobody handles, which ends the process; batched,
          // it makes the pool give up, and a new pool replaces it (below).
          failJobBatchDelay: 0,
        },
      },
      taskList: buildTaskList(deps),
      parsedCronItems: parseCrontab(CRONTAB),
      logger: queueLogger(deps, () => stopping),
    }).then((runner) => {
      // its end is watched through its events (below); an error there must not end the process
      runner.promise.catch((err: unknown) => deps.log.debug({ err: (err as Error)?.message }, 'a job worker pool ended with an error'));
      return runner;
    });
  let current: Runner;
  try {
    current = await launch();
  } catch (err) {
    await heartbeat.stop();
    throw err;
  }
  const givenUp = new Set<string>();
  const replace = async () => {
    while (!stopping) {
      await new Promise((r) => setTimeout(r, RESTART_DELAY_MS));
      if (stopping) return;
      try {
        const next = await launch();
        if (stopping) await next.stop().catch(() => {});
        else current = next;
        deps.log.warn('a new job worker pool is running');
        return;
      } catch (err) {
        deps.log.error({ err: (err as Error).message }, 'could not start a new job worker pool; retrying');
      }
    }
  };
  const gaveUp = ({ workerPool, message }: { workerPool: { id: string }; message?: string }) => {
    if (stopping || givenUp.has(workerPool.id)) return;
    givenUp.add(workerPool.id);
    deps.log.error(
      { pool: workerPool.id, reason: message ?? 'ended' },
      'the job worker pool gave up; its jobs are released and a new pool starts',
    );
    heartbeat.release(workerPool.id);
    void replace();
  };
  // a pool shutting down, or ended, while this worker is not stopping has given up
  events.on('pool:gracefulShutdown', gaveUp);
  events.on('pool:release', gaveUp);
  let resolveStopped!: () => void;
  const promise = new Promise<void>((resolve) => (resolveStopped = resolve));
  return {
    promise,
    async stop() {
      stopping = true;
      try {
        await current.stop();
      } finally {
        // the webhook sends its jobs started, each within its 5 s limit, and their outcomes
        // recorded, while this pool still counts as alive (their `sent_by`)
        await webhookSendsOf(deps).drain();
        await heartbeat.stop();
        resolveStopped();
      }
    },
  };
}
