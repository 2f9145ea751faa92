import { randomBytes } from 'node:crypto';
import type { Tx } from '../../db/pool.ts';
import type { BookingEventType } from '../../db/queries/booking-events.ts';
import { insertEvent } from '../../db/queries/booking-events.ts';
import { addJob } from '../../jobs/queue.ts';

export type { BookingEventType };

export const EVENT_TYPES: readonly BookingEventType[] = [
  'BOOKING_CREATED',
  'BOOKING_UPDATED',
  'BOOKING_CANCELLED',
  'BOOKING_RESCHEDULED',
  'BOOKING_COMPLETED',
  'BOOKING_NO_SHOW',
  'ASSIGNMENT_CHANGED',
];

export interface RecordEventInput {
  organizationId: string;
  mode: 'test' | 'live';
  type: BookingEventType;
  /** The booking as GET /bookings/{id} returns it after the change. */
  booking: { id: string } & Record<string, unknown>;
  at: Date;
}

/**
 * Writes a booking event to the outbox and enqueues its fan-out job, on the caller's
 * transaction: the event exists if and only if the change commits, and is never lost after.
 */
export async function recordEvent(tx: Tx, input: RecordEventInput): Promise<string> {
  const id = `evt_${randomBytes(12).toString('hex')}`;
  await insertEvent(tx, {
    id,
    organization_id: input.organizationId,
    mode: input.mode,
    booking_id: input.booking.id,
    type: input.type,
    payload: { event: input.type, timestamp: input.at.toISOString(), data: input.booking },
  });
  await addJob(tx, 'dispatch-event', { eventId: id }, { maxAttempts: 25 });
  return id;
}
