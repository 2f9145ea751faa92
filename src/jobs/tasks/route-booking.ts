import { setTimeout as sleep } from 'node:timers/promises';
import { routeBookings } from '../../domain/bookings/route.ts';
import { coalesce } from '../../lib/coalesce.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';

/**
 * A booking is 'busy' while a cancel or PATCH holds its row, which takes milliseconds. Routing
 * tries again within the job over about 0.8 s before failing it: graphile-worker's first retry
 * would come about 3 s later, past DRAFT → SCHEDULED's second.
 */
const BUSY_RETRY_DELAYS_MS = [25, 50, 100, 200, 400];

/**
 * Enqueued by POST /bookings in the create transaction: DRAFT → SCHEDULED or
 * PENDING_CONFIRMATION. One routing transaction at a time per process: the jobs that start
 * while it runs wait and go together into the next (coalesce), so under load a booking's
 * routing is a share of one transaction, and a lone job waits for nothing. A waiting job holds
 * a worker slot but no connection, hence the default of 64 slots (WORKER_CONCURRENCY): with 16,
 * the waiting jobs capped each batch at 16 and DRAFT → SCHEDULED passed a second under load.
 * A throw (database down) makes graphile-worker retry each job with backoff.
 */
export function routeBookingTask(deps: WorkerDeps): TypedTask<'route-booking'> {
  const route = coalesce((ids: string[]) => routeBookings(deps, ids));
  return async (payload) => {
    for (const delay of BUSY_RETRY_DELAYS_MS) {
      if ((await route(payload.bookingId)) !== 'busy') return;
      await sleep(delay);
    }
    // Still held (a long transaction): the queue's retry routes it later.
    if ((await route(payload.bookingId)) === 'busy')
      throw new Error(`booking ${payload.bookingId} is locked by another transaction; routing retries`);
  };
}
