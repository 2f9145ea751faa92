import { jobSpec } from '../../db/jobs.ts';
import type { Pool } from '../../db/pool.ts';
import type { NewBooking } from '../../db/queries/bookings.ts';
import * as bookings from '../../db/queries/bookings.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import type { Caller } from '../vocabulary.ts';
import { freeHostsAt } from '../availability/find-slots.ts';
import type { FreeBusyCache } from '../availability/freebusy-cache.ts';
import { Conflict, ValidationError } from '../errors.ts';
import { BROADCAST_EVENTS, DISPATCH_MAX_ATTEMPTS, eventRow } from '../events/record.ts';
import { candidatesOf, holdArgs, noLongerAvailable } from './hold.ts';
import { newBookingId } from './ids.ts';
import { isUniqueViolation, sqlState, withRetry } from './pg-errors.ts';
import { bookingJson } from './present.ts';
import { candidateOrder, inHostOrder } from './routing.ts';
import type { AttendeeInput } from './validate.ts';
import { instantField, requireFuture, validateAttendee, validateCustomFields, validateMetadata } from './validate.ts';
import { bookingTransitions, bookingsCreated } from '../../metrics.ts';
import type { BookingRow } from '../../db/schema.ts';

export interface BookingDeps {
  db: Pool;
  now: () => Date;
  freebusyCache: FreeBusyCache;
}

export interface CreateInput {
  event_type_id: string;
  requested_time: string;
  attendee: AttendeeInput;
  custom_fields?: Record<string, unknown>;
  metadata?: unknown;
  assign_to?: string;
  external_id?: string;
}

/**
 * graphile-worker runs lower numbers first. Routing has a latency promise (DRAFT → SCHEDULED
 * within a second, decisions.md §4), while changes also queue mail (10) and, when webhooks
 * subscribe, fan-out (0): under load routing goes first instead of queueing behind them.
 */
const ROUTE_PRIORITY = -10;

/**
 * POST /bookings. Capacity is decided here (decisions.md §4): the booking takes its member(s)
 * as active booking_members rows in the statement that inserts it, so the exclusion
 * constraint lets exactly as many concurrent creates win as there are free hosts. The
 * 'route-booking' job enqueued in the same statement later turns those holds into the
 * assignment. The write is one round trip (src/db/functions/create_booking.sql); a retry (a
 * candidate's zone changed, a deadlock) reads the slot again.
 */
export async function createBooking(deps: BookingDeps, caller: Caller, input: CreateInput): Promise<BookingRow> {
  const now = deps.now();
  const noType = () =>
    new ValidationError(`field "event_type_id": no active event type "${input.event_type_id}" in this organization`, 'event_type_id');
  const type = await eventTypes.findBookable(deps.db, caller.organizationId, input.event_type_id);
  if (!type) throw noType();
  const attendee = validateAttendee(input.attendee);
  const customFields = validateCustomFields(type.custom_fields, input.custom_fields);
  const metadata = validateMetadata(input.metadata);
  const start = instantField(input.requested_time, 'requested_time');
  requireFuture(start, now, 'requested_time');
  // Member ids are uuids, which compare lowercase; GET /availability's assignedToId does the same.
  const assignTo = input.assign_to?.toLowerCase();
  const end = new Date(start.getTime() + type.duration * 60_000);
  const id = newBookingId();
  const booking: NewBooking = {
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
  };

  // The hosts came with the type; a retry (a candidate's zone changed, say) reads them again.
  let preloaded: typeof type.hosts | undefined = type.hosts;
  const { booking: row, held } = await withRetry(async () => {
    const hosts = preloaded;
    preloaded = undefined;
    const slot = await freeHostsAt(deps.db, { ...caller, eventType: type, now, start, assignedToId: assignTo, hosts });
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
    const order = collective ? free : candidateOrder(type.scheduling_type, free, slot.stats);
    const request = { bookingId: id, mode: caller.mode, start, end, bufferBefore: type.buffer_before, bufferAfter: type.buffer_after };
    // the event's booking as GET /bookings/{id} will show it; the database fills in its timestamps
    const draft = {
      ...booking,
      cancellation_reason: null,
      cancelled_at: null,
      rescheduled_to: null,
      version: 1,
      created_at: now,
      updated_at: now,
    };
    const event = eventRow({
      organizationId: caller.organizationId,
      mode: caller.mode,
      type: 'BOOKING_CREATED',
      booking: bookingJson(draft),
      at: now,
    });
    try {
      return await bookings.createDraft(deps.db, {
        booking,
        hold: holdArgs(candidatesOf(order, slot.hosts), request),
        collective,
        event: { id: event.id, payload: event.payload },
        broadcast: [...BROADCAST_EVENTS],
        jobs: [jobSpec('route-booking', { bookingId: id }, { maxAttempts: 25, priority: ROUTE_PRIORITY })],
        jobsIfSubscribed: [jobSpec('dispatch-event', { eventId: event.id }, { maxAttempts: DISPATCH_MAX_ATTEMPTS })],
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new Conflict(`field "external_id": a booking with external_id "${input.external_id}" already exists`);
      if (sqlState(err) === bookings.NO_CANDIDATE) throw noLongerAvailable(collective);
      // deleted or disabled while this create ran (create_booking checks it under the row's lock)
      if (sqlState(err) === bookings.TYPE_GONE) throw noType();
      throw err;
    }
  });
  await deps.freebusyCache.invalidate(held);
  bookingsCreated.inc();
  bookingTransitions.inc({ to: 'DRAFT' });
  return row;
}
