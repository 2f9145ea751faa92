import type { Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import type { BookingRow } from '../../db/queries/bookings.ts';
import * as bookings from '../../db/queries/bookings.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import { addJob } from '../../jobs/queue.ts';
import type { AuthContext } from '../auth/keys.ts';
import { freeHostsAt } from '../availability/find-slots.ts';
import type { FreeBusyCache } from '../availability/freebusy-cache.ts';
import { Conflict, ValidationError } from '../errors.ts';
import { emit } from './change.ts';
import { holdMembers } from './hold.ts';
import { newBookingId } from './ids.ts';
import { isUniqueViolation, withRetry } from './pg-errors.ts';
import { candidateOrder, inHostOrder } from './routing.ts';
import type { AttendeeInput } from './validate.ts';
import { requireFuture, validateAttendee, validateCustomFields, validateMetadata } from './validate.ts';

export interface BookingDeps {
  db: Pool;
  now: () => Date;
  freebusyCache: FreeBusyCache;
}

export type Caller = Pick<AuthContext, 'organizationId' | 'mode'>;

export interface CreateInput {
  event_type_id: string;
  requested_time: string;
  attendee: AttendeeInput;
  custom_fields?: Record<string, unknown>;
  metadata?: unknown;
  assign_to?: string;
  external_id?: string;
}

export const ROUTE_JOB = 'route-booking';
/**
 * graphile-worker runs lower numbers first. Routing has a latency promise (DRAFT → SCHEDULED
 * within a second, decisions.md §4) and each booking also queues webhook fan-out (0) and
 * mail (10): under load routing goes first instead of queueing behind them.
 */
const ROUTE_PRIORITY = -10;

/**
 * POST /bookings. Capacity is decided here (decisions.md §4): inside the transaction the
 * booking takes its member(s) as active booking_members rows, so the exclusion constraint
 * lets exactly as many concurrent creates win as there are free hosts. The 'route-booking'
 * job enqueued in the same transaction later turns those holds into the assignment.
 */
export async function createBooking(deps: BookingDeps, caller: Caller, input: CreateInput): Promise<BookingRow> {
  const now = deps.now();
  const type = await eventTypes.findVisibleWithFields(deps.db, caller.organizationId, input.event_type_id);
  if (!type) {
    throw new ValidationError(`field "event_type_id": no active event type "${input.event_type_id}" in this organization`, 'event_type_id');
  }
  const attendee = validateAttendee(input.attendee);
  const customFields = validateCustomFields(type.custom_fields, input.custom_fields);
  const metadata = validateMetadata(input.metadata);
  const start = new Date(input.requested_time);
  requireFuture(start, now, 'requested_time');

  // Member ids are uuids, which compare lowercase; GET /availability's assignedToId does the same.
  const assignTo = input.assign_to?.toLowerCase();
  const slot = await freeHostsAt(deps.db, { ...caller, eventType: type, now, start, assignedToId: assignTo });
  if (assignTo !== undefined && !slot.hosts.some((h) => h.id === assignTo)) {
    throw new ValidationError(`field "assign_to": member "${input.assign_to}" is not a host of this event type`, 'assign_to');
  }
  if (!slot.listed || slot.memberIds.length === 0) {
    throw new Conflict(
      assignTo !== undefined
        ? `field "assign_to": the member is not free at ${start.toISOString()}`
        : `field "requested_time": ${start.toISOString()} is not an available slot of this event type`,
    );
  }
  const free = inHostOrder(slot.memberIds, slot.hosts);
  const collective = type.scheduling_type === 'COLLECTIVE';
  const candidates = collective ? free : await candidateOrder(deps.db, type.scheduling_type, caller.mode, start, free);
  const end = new Date(start.getTime() + type.duration * 60_000);
  const id = newBookingId();

  const { booking, held } = await withRetry(() =>
    transaction(deps.db, async (tx) => {
      let row: BookingRow;
      try {
        row = await bookings.insertBooking(tx, {
          id,
          organization_id: caller.organizationId,
          mode: caller.mode,
          event_type_id: type.id,
          status: 'DRAFT',
          start_time: start,
          end_time: end,
          attendee,
          custom_fields: customFields,
          metadata,
          external_id: input.external_id ?? null,
          assigned_to_id: null,
          host_ids: [],
          rescheduled_from: null,
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new Conflict(`field "external_id": a booking with external_id "${input.external_id}" already exists`);
        throw err;
      }
      const request = { bookingId: id, mode: caller.mode, start, end, bufferBefore: type.buffer_before, bufferAfter: type.buffer_after };
      const taken = await holdMembers(tx, collective, candidates, request, { skipBusy: true });
      await emit(tx, row, 'BOOKING_CREATED', now);
      await addJob(tx, ROUTE_JOB, { bookingId: id }, { maxAttempts: 25, priority: ROUTE_PRIORITY });
      return { booking: row, held: taken };
    }),
  );
  await deps.freebusyCache.invalidate(held);
  return booking;
}
