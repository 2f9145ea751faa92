import type { Task } from 'graphile-worker';
import { routeBooking } from '../../domain/bookings/route.ts';
import type { WorkerDeps } from '../deps.ts';

export interface RouteBookingPayload {
  bookingId: string;
}

function isPayload(p: unknown): p is RouteBookingPayload {
  return !!p && typeof p === 'object' && typeof (p as RouteBookingPayload).bookingId === 'string';
}

/**
 * Enqueued by POST /bookings in the create transaction: DRAFT → SCHEDULED or
 * PENDING_CONFIRMATION. A throw (database down) makes graphile-worker retry with backoff.
 */
export function routeBookingTask(deps: WorkerDeps): Task {
  return async (payload) => {
    if (!isPayload(payload)) {
      deps.log.error({ payload }, 'route-booking: payload without bookingId, dropped');
      return;
    }
    await routeBooking(deps, payload.bookingId);
  };
}
