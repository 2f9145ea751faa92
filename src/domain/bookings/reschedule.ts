import { transaction } from '../../db/pool.ts';
import * as holds from '../../db/queries/booking-members.ts';
import * as bookings from '../../db/queries/bookings.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import { freeHostsAt } from '../availability/find-slots.ts';
import { enqueueCalendarWrites } from '../calendars/write-back.ts';
import { enqueueBookingEmail } from '../email/enqueue.ts';
import { Conflict, NotFound } from '../errors.ts';
import type { BookingEventType } from '../events/record.ts';
import { recordEvents } from '../events/record.ts';
import type { Caller } from '../vocabulary.ts';
import type { BookingDeps } from './create.ts';
import { candidatesOf, holdMembers } from './hold.ts';
import { newBookingId } from './ids.ts';
import { withRetry } from './pg-errors.ts';
import { bookingJson } from './present.ts';
import { candidateOrder, inHostOrder } from './routing.ts';
import { requireTransition } from './transitions.ts';
import { instantField, requireFuture, validateReason } from './validate.ts';
import { bookingTransitions } from '../../metrics.ts';
import type { BookingRow } from '../../db/schema.ts';

export interface RescheduleInput {
  start_time: string;
  reason?: string;
}

const sameMembers = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id) => b.includes(id));

/**
 * Moves a booking to another listed slot (decisions.md §4): in one transaction the old booking
 * is CANCELLED with rescheduled_to and frees its members, and a new booking in RESCHEDULED
 * (rescheduled_from = old) takes them again at the new time when they are free, otherwise the
 * next free host by the routing rule. The old booking's own interval never blocks the move.
 */
export async function rescheduleBooking(deps: BookingDeps, caller: Caller, id: string, input: RescheduleInput): Promise<BookingRow> {
  const now = deps.now();
  const reason = validateReason(input.reason);
  const start = instantField(input.start_time, 'start_time');
  requireFuture(start, now, 'start_time');
  const current = await bookings.findById(deps.db, caller.organizationId, caller.mode, id);
  if (!current) throw new NotFound(`booking "${id}" not found`);
  requireTransition('reschedule', current.status);
  // Its own time is not a free slot GET /availability would list (the booking holds it);
  // "moving" there would only cancel and recreate the same meeting.
  if (current.start_time.getTime() === start.getTime()) {
    throw new Conflict(`field "start_time": the booking already starts at ${start.toISOString()}`);
  }
  const type = await eventTypes.findVisible(deps.db, caller.organizationId, current.event_type_id);
  if (!type) throw new Conflict("the booking's event type is no longer bookable");

  const end = new Date(start.getTime() + type.duration * 60_000);
  const newId = newBookingId();
  const collective = type.scheduling_type === 'COLLECTIVE';

  // The slot is read again on a retry: hold_members refuses zones that changed since (40001).
  const result = await withRetry(async () => {
    const slot = await freeHostsAt(deps.db, { ...caller, eventType: type, now, start, excludeBookingId: id });
    if (!slot.listed || slot.memberIds.length === 0) {
      throw new Conflict(`field "start_time": ${start.toISOString()} is not an available slot of this event type`);
    }
    const free = inHostOrder(slot.memberIds, slot.hosts);
    // A booking that can be rescheduled is routed: its hosts are the members it holds.
    const kept = free.filter((m) => current.host_ids.includes(m));
    const others = candidateOrder(
      type.scheduling_type,
      free.filter((m) => !kept.includes(m)),
      slot.stats,
    );
    const candidates = candidatesOf(collective ? free : [...kept, ...others], slot.hosts);
    return transaction(deps.db, async (tx) => {
      const locked = await bookings.lockForChange(tx, caller.organizationId, caller.mode, id);
      if (!locked) throw new NotFound(`booking "${id}" not found`);
      requireTransition('reschedule', locked.status);
      const released = await holds.release(tx, id);
      await bookings.applyStatus(tx, id, { status: 'CANCELLED', cancellationReason: reason, cancelledAt: now, rescheduledTo: newId });
      await bookings.insertBooking(tx, {
        id: newId,
        organization_id: locked.organization_id,
        mode: locked.mode,
        event_type_id: locked.event_type_id,
        status: 'RESCHEDULED',
        start_time: start,
        end_time: end,
        attendee: locked.attendee,
        custom_fields: locked.custom_fields,
        metadata: locked.metadata,
        external_id: locked.external_id,
        assigned_to_id: null,
        host_ids: [],
        rescheduled_from: id,
      });
      // the insert's foreign key check holds the type's row: a DELETE or disabling PATCH that
      // locked it first has committed, and is seen here (create_booking checks the same)
      if (!(await eventTypes.findVisible(tx, caller.organizationId, locked.event_type_id))) {
        throw new Conflict("the booking's event type is no longer bookable");
      }
      const request = { bookingId: newId, mode: locked.mode, start, end, bufferBefore: type.buffer_before, bufferAfter: type.buffer_after };
      const taken = await holdMembers(tx, collective, candidates, request);
      const ordered = inHostOrder(taken, slot.hosts);
      const fresh = await bookings.applyStatusForEmail(tx, newId, { status: 'RESCHEDULED', assignedToId: ordered[0], hostIds: ordered });
      const types: BookingEventType[] = sameMembers(ordered, released)
        ? ['BOOKING_RESCHEDULED']
        : ['BOOKING_RESCHEDULED', 'ASSIGNMENT_CHANGED'];
      const booking = bookingJson(fresh);
      await recordEvents(
        tx,
        types.map((type) => ({ organizationId: fresh.organization_id, mode: fresh.mode, type, booking, at: fresh.updated_at })),
      );
      await enqueueBookingEmail(tx, { bookingId: newId, kind: 'rescheduled', booking: fresh });
      // the same calendar UID, moved (and moved to other hosts' calendars if the hosts changed)
      await enqueueCalendarWrites(tx, [newId]);
      return { booking: fresh, touched: [...new Set([...released, ...taken])] };
    });
  });
  await deps.freebusyCache.invalidate(result.touched);
  bookingTransitions.inc({ to: 'CANCELLED' });
  bookingTransitions.inc({ to: 'RESCHEDULED' });
  return result.booking;
}
