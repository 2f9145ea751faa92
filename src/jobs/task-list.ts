import type { TaskList } from 'graphile-worker';
import { ROUTE_JOB } from '../domain/bookings/create.ts';
import { DISPATCH_TASK } from '../domain/events/record.ts';
import type { WorkerDeps } from './deps.ts';
import { deliverWebhookTask } from './tasks/deliver-webhook.ts';
import { dispatchEventTask } from './tasks/dispatch-event.ts';
import { purgeIdempotency } from './tasks/purge-idempotency.ts';
import { recoverDeadWorkersTask } from './tasks/recover-dead-workers.ts';
import { routeBookingTask } from './tasks/route-booking.ts';
import { sendEmail } from './tasks/send-email.ts';
import { sweepWebhookDeliveriesTask } from './tasks/sweep-webhook-deliveries.ts';
import { vacuumJobTableTask } from './tasks/vacuum-job-table.ts';

/** Every job the worker runs, by name; a job added under a name not listed here never runs. */
export function buildTaskList(deps: WorkerDeps): TaskList {
  return {
    [DISPATCH_TASK]: dispatchEventTask(deps),
    'deliver-webhook': deliverWebhookTask(deps),
    'sweep-webhook-deliveries': sweepWebhookDeliveriesTask(deps),
    'purge-idempotency': purgeIdempotency(deps),
    'recover-dead-workers': recoverDeadWorkersTask(deps),
    [ROUTE_JOB]: routeBookingTask(deps),
    'send-email': sendEmail(deps),
    'vacuum-job-table': vacuumJobTableTask(deps),
  };
}
