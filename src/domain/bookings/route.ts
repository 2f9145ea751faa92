import type { Logger } from 'pino';
import type { Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import * as bookings from '../../db/queries/bookings.ts';
import type { FreeBusyCache } from '../availability/freebusy-cache.ts';
import { hostsOf } from '../availability/find-slots.ts';
import { enqueueBookingEmail } from '../email/enqueue.ts';
import { emit } from './change.ts';
import { inHostOrder } from './routing.ts';
import { decide, routedStatus } from './transitions.ts';

export interface RouteDeps {
  db: Pool;
  now: () => Date;
  log: Logger;
  freebusyCache: FreeBusyCache;
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
  const outcome = await transaction(deps.db, async (tx) => {
    const booking = await bookings.lockForRouting(tx, bookingId);
    if (!booking || decide('route', booking.status).kind !== 'apply') return { kind: 'skipped' as const, members: [] };
    const held = booking.held_ids;
    if (held.length === 0) return { kind: 'no_holds' as const, members: [] };
    // One held member (SOLO, ROUND_ROBIN) needs no host order: loading the hosts is for COLLECTIVE.
    let ordered = held;
    if (held.length > 1) {
      const type = await bookings.eventTypeOf(tx, booking);
      if (!type) return { kind: 'no_holds' as const, members: [] };
      ordered = inHostOrder(held, await hostsOf(tx, type));
    }
    const row = await bookings.applyStatus(tx, bookingId, {
      status: routedStatus(booking.requires_confirmation),
      assignedToId: ordered[0],
      hostIds: ordered,
    });
    await emit(tx, row, 'ASSIGNMENT_CHANGED', now);
    await enqueueBookingEmail(tx, { bookingId, kind: booking.requires_confirmation ? 'confirmation_request' : 'scheduled' });
    return { kind: 'routed' as const, members: ordered };
  });
  if (outcome.kind === 'no_holds') deps.log.error({ bookingId }, 'DRAFT booking without holds: left in DRAFT');
  if (outcome.members.length > 0) await deps.freebusyCache.invalidate(outcome.members);
  return outcome.kind;
}
