import type { TaskList } from 'graphile-worker';
import type { WorkerDeps } from './deps.ts';
import type { TaskName, TypedTask } from './registry.ts';
import { TASKS, decodingTask } from './registry.ts';
import { deliverWebhookTask } from './tasks/deliver-webhook.ts';
import { dispatchEventTask } from './tasks/dispatch-event.ts';
import { enforceRetentionTask } from './tasks/enforce-retention.ts';
import { recoverDeadWorkersTask } from './tasks/recover-dead-workers.ts';
import { routeBookingTask } from './tasks/route-booking.ts';
import { sendEmail } from './tasks/send-email.ts';
import { scheduleCalendarSyncsTask } from './tasks/schedule-calendar-syncs.ts';
import { sweepWebhookDeliveriesTask } from './tasks/sweep-webhook-deliveries.ts';
import { syncCalendarTask } from './tasks/sync-calendar.ts';
import { vacuumJobTableTask } from './tasks/vacuum-job-table.ts';
import { writeCalendarEventTask } from './tasks/write-calendar-event.ts';

/** One task per registered name (src/db/jobs.ts): the compiler refuses a name missing here or not registered. */
const TASK_FILES: { [T in TaskName]: (deps: WorkerDeps) => TypedTask<T> } = {
  'route-booking': routeBookingTask,
  'send-email': sendEmail,
  'dispatch-event': dispatchEventTask,
  'deliver-webhook': deliverWebhookTask,
  'sweep-webhook-deliveries': sweepWebhookDeliveriesTask,
  'enforce-retention': enforceRetentionTask,
  'recover-dead-workers': recoverDeadWorkersTask,
  'vacuum-job-table': vacuumJobTableTask,
  'sync-calendar': syncCalendarTask,
  'schedule-calendar-syncs': scheduleCalendarSyncsTask,
  'write-calendar-event': writeCalendarEventTask,
};

/** Every job the worker runs, by name, each decoding its payload first; a job added under another name never runs. */
export function buildTaskList(deps: WorkerDeps): TaskList {
  const list: TaskList = {};
  for (const name of Object.keys(TASKS) as TaskName[]) {
    list[name] = decodingTask(name, deps, (TASK_FILES[name] as (deps: WorkerDeps) => TypedTask<typeof name>)(deps));
  }
  return list;
}
