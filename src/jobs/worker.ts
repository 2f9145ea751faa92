import type { Runner } from 'graphile-worker';
import { Logger as QueueLogger, parseCrontab, run } from 'graphile-worker';
import type { WorkerDeps } from './deps.ts';
import { buildTaskList } from './task-list.ts';

const CRONTAB = ['0 * * * * purge-idempotency ?fill=2h'].join('\n');

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
 * Starts the job worker. Stopping it lets running jobs finish; jobs it has not started stay in
 * the queue, and a job of a process that died is retried after graphile-worker's lock timeout.
 */
export async function startWorker(deps: WorkerDeps): Promise<Runner> {
  return run({
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
        // locked job that was not completed runs again after the lock timeout, exactly as a
        // job that finished just before its completion query always could.
        localQueue: { size: deps.config.workerConcurrency * 2 },
        completeJobBatchDelay: 0,
      },
    },
    taskList: buildTaskList(deps),
    parsedCronItems: parseCrontab(CRONTAB),
    logger: queueLogger(deps),
  });
}
