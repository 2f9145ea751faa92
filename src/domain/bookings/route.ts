import type { Logger } from 'pino';
import type { Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import * as bookings from '../../db/queries/bookings.ts';
import { hostsOf } from '../availability/find-slots.ts';
import { enqueueBookingEmail } from '../email/enqueue.ts';
import { emit } from './change.ts';
import { inHostOrder } from './routing.ts';
import { decide, routedStatus } from './transitions.ts';

export interface RouteDeps {
  db: Pool;
  now: () => Date;
  log: Logger;
}

export type RouteOutcome = 'routed' | 'skipped' | 'no_holds';

/**
 * Finishes routing of a DRAFT booking. The member was already chosen and held by the create
 * transaction (capacity is decided there), so routing cannot fail for lack of a member and
 * never drops a booking that got its 201: it turns the holds into the assignment, moves the
 * booking to SCHEDULED or PENDING_CONFIRMATION, and records ASSIGNMENT_CHANGED and the
 * first email in the same transaction. Running it twice is harmless: only DRAFT is routed.
 */
export async function routeBooking(deps: RouteDeps, bookingId: string): Promise<RouteOutcome> {
  const now = deps.now();
  const outcome = await transaction(deps.db, async (tx): Promise<RouteOutcome> => {
    const booking = await bookings.lockForRouting(tx, bookingId);
    if (!booking || decide('route', booking.status).kind !== 'apply') return 'skipped';
    const held = booking.held_ids;
    if (held.length === 0) return 'no_holds';
    // One held member (SOLO, ROUND_ROBIN) needs no host order: loading the hosts is for COLLECTIVE.
    let ordered = held;
    if (held.length > 1) {
      const type = await bookings.eventTypeOf(tx, booking);
      if (!type) return 'no_holds';
      ordered = inHostOrder(held, await hostsOf(tx, type));
    }
    const row = await bookings.applyStatusForEmail(tx, bookingId, {
      status: routedStatus(booking.requires_confirmation),
      assignedToId: ordered[0],
      hostIds: ordered,
    });
    await emit(tx, row, 'ASSIGNMENT_CHANGED', now);
    await enqueueBookingEmail(tx, { bookingId, kind: booking.requires_confirmation ? 'confirmation_request' : 'scheduled', booking: row });
    return 'routed';
  });
  // No free/busy invalidation: busy time is the holds, which the create already wrote (and
  // invalidated for); routing changes none of them.
  if (outcome === 'no_holds') deps.log.error({ bookingId }, 'DRAFT booking without holds: left in DRAFT');
  return outcome;
}
