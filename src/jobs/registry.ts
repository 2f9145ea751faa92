import type { JobHelpers, Task } from 'graphile-worker';
import { Compile } from 'typebox/compile';
import type { Payload, TaskName } from '../db/jobs.ts';
import { TASKS, failJobForGood } from '../db/jobs.ts';
import type { WorkerDeps } from './deps.ts';

/**
 * The worker's side of the job registry. The names and payload schemas are declared once, in
 * src/db/jobs.ts (`TASKS`), next to `enqueue`, so that producers in the domain and the database
 * layer type-check their payloads without importing the worker; here each schema gets its
 * compiled decoder, and every task is wrapped so that it only ever sees a payload that passed it.
 */
export { TASKS };
export type { Payload, TaskName };

/** A task's work, given its payload already decoded. */
export type TypedTask<T extends TaskName> = (payload: Payload<T>, helpers: JobHelpers) => Promise<void>;

const decoders = new Map<string, ReturnType<typeof Compile>>(Object.entries(TASKS).map(([name, schema]) => [name, Compile(schema)]));

/** The payload's problems against its task's schema: none when it decodes. */
export function payloadProblems(task: TaskName, payload: unknown): string[] {
  const decoder = decoders.get(task)!;
  if (decoder.Check(payload)) return [];
  const issues = [...decoder.Errors(payload)] as { instancePath?: string; message?: string }[];
  return issues.slice(0, 5).map((i) => `${i.instancePath || '(payload)'} ${i.message ?? 'is invalid'}`);
}

/**
 * The graphile-worker task for `name`: decodes the payload and hands it to `run`. A payload
 * that does not decode can never succeed, so it is not retried: it is logged (error, with the
 * payload and the problems) and the job is failed for good (attempts = max_attempts, the reason
 * in last_error), not completed and deleted, so the row and its payload stay in
 * graphile_worker.jobs for an operator to inspect, fix and reschedule. The throw is what makes
 * graphile-worker record last_error and unlock the row.
 */
export function decodingTask<T extends TaskName>(name: T, deps: WorkerDeps, run: TypedTask<T>): Task {
  return async (payload, helpers) => {
    const problems = payloadProblems(name, payload);
    if (problems.length === 0) return run(payload as Payload<T>, helpers);
    const reason = `malformed ${name} payload, not retried: ${problems.join('; ')}`;
    deps.log.error({ task: name, jobId: helpers.job.id, payload, problems }, reason);
    await failJobForGood(deps.db, helpers.job.id);
    throw new Error(reason);
  };
}
