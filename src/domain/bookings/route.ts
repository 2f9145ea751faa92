import type { Logger } from 'pino';
import type { Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import type { Assignment, BookingToRoute } from '../../db/queries/bookings.ts';
import * as bookings from '../../db/queries/bookings.ts';
import { bookingRouting, bookingTransitions } from '../../metrics.ts';
import { enqueueCalendarWrites } from '../calendars/write-back.ts';
import { enqueueBookingEmails } from '../email/enqueue.ts';
import { emitEach } from './change.ts';
import { decide, routedStatus } from './transitions.ts';
import type { BookingRow } from '../../db/schema.ts';

export interface RouteDeps {
  db: Pool;
  now: () => Date;
  log: Logger;
}

/** busy: another transaction holds the booking; route it again later. */
export type RouteOutcome = 'routed' | 'skipped' | 'no_holds' | 'busy';

/** The assignment routing gives a DRAFT booking (its holds come in host order), or why it gives none. */
function assignmentOf(booking: BookingToRoute): Assignment | 'skipped' | 'no_holds' {
  if (decide('route', booking.status).kind !== 'apply') return 'skipped';
  if (booking.held_ids.length === 0) return 'no_holds';
  return { id: booking.id, status: routedStatus(booking.requires_confirmation), hostIds: booking.held_ids };
}

/**
 * Finishes routing of DRAFT bookings, several in one transaction (the route-booking jobs that
 * run together are routed together: the work per booking is then a share of a few statements).
 * Each booking's member was already chosen and held by its create transaction (capacity is
 * decided there), so routing cannot fail for lack of a member and never drops a booking that
 * got its 201: it turns the holds into the assignment, moves the booking to SCHEDULED or
 * PENDING_CONFIRMATION, and records ASSIGNMENT_CHANGED, the first email and the hosts'
 * calendar write-back in the same transaction. Running it twice is harmless: only DRAFT is routed. A booking that another
 * transaction holds right now comes back 'busy' instead of being waited for.
 */
export async function routeBookings(deps: RouteDeps, ids: readonly string[]): Promise<Map<string, RouteOutcome>> {
  let routed: BookingRow[] = [];
  const outcomes = await transaction(deps.db, async (tx) => {
    const result = new Map<string, RouteOutcome>(ids.map((id) => [id, 'skipped']));
    const assignments: Assignment[] = [];
    const locked = await bookings.lockForRouting(tx, ids);
    const lockedIds = new Set(locked.map((b) => b.id));
    const missing = ids.filter((id) => !lockedIds.has(id));
    if (missing.length > 0) {
      for (const id of await bookings.existingIds(tx, missing)) result.set(id, 'busy');
    }
    for (const booking of locked) {
      const a = assignmentOf(booking);
      if (typeof a === 'string') {
        result.set(booking.id, a);
        continue;
      }
      assignments.push(a);
      result.set(booking.id, 'routed');
    }
    if (assignments.length === 0) return result;
    const rows = await bookings.assignRouted(tx, assignments);
    routed = rows;
    await emitEach(tx, rows, 'ASSIGNMENT_CHANGED');
    await enqueueBookingEmails(
      tx,
      rows.map((row) => ({
        bookingId: row.id,
        kind: row.status === 'PENDING_CONFIRMATION' ? ('confirmation_request' as const) : ('scheduled' as const),
        booking: row,
      })),
    );
    await enqueueCalendarWrites(
      tx,
      rows.map((row) => row.id),
    );
    return result;
  });
  // No free/busy invalidation: busy time is the holds, which the create already wrote (and
  // invalidated for); routing changes none of them.
  for (const [bookingId, outcome] of outcomes) {
    if (outcome === 'no_holds') deps.log.error({ bookingId }, 'DRAFT booking without holds: left in DRAFT');
  }
  const committed = Date.now();
  for (const row of routed) {
    const seconds = Math.max(0, committed - row.created_at.getTime()) / 1000;
    bookingTransitions.inc({ to: row.status });
    bookingRouting.observe(seconds);
    deps.log.info(
      {
        bookingId: row.id,
        status: row.status,
        assignedToId: row.assigned_to_id,
        hostIds: row.host_ids,
        routingMs: Math.round(seconds * 1000),
      },
      'booking routed',
    );
  }
  return outcomes;
}

/** routeBookings for one booking. */
export async function routeBooking(deps: RouteDeps, bookingId: string): Promise<RouteOutcome> {
  return (await routeBookings(deps, [bookingId])).get(bookingId)!;
}
