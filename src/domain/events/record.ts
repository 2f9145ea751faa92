import { randomBytes } from 'node:crypto';
import type { Tx } from '../../db/pool.ts';
import { insertEvents } from '../../db/queries/booking-events.ts';
import { enqueue } from '../../db/jobs.ts';
import type { BookingEventType } from '../vocabulary.ts';

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

/**
 * The spec says BOOKING_UPDATED "is broadcast to every active subscription in the
 * organization": it goes to every active webhook of the organization and mode, whatever its
 * events list (docs/webhooks.md). Every other event goes only where it is listed.
 */
export const BROADCAST_EVENTS: ReadonlySet<string> = new Set(['BOOKING_UPDATED']);

export interface RecordEventInput {
  organizationId: string;
  mode: 'test' | 'live';
  type: BookingEventType;
  /** The booking as GET /bookings/{id} returns it after the change. */
  booking: { id: string } & Record<string, unknown>;
  at: Date;
}

/** Attempts of an event's fan-out job ('dispatch-event', src/jobs/tasks/dispatch-event.ts). */
export const DISPATCH_MAX_ATTEMPTS = 25;

/**
 * The event as the outbox stores it: the payload every delivery sends. `booking` is the booking
 * as GET /bookings/{id} returns it after the change.
 */
export function eventRow(input: RecordEventInput) {
  return {
    id: `evt_${randomBytes(12).toString('hex')}`,
    organization_id: input.organizationId,
    mode: input.mode,
    booking_id: input.booking.id,
    type: input.type,
    payload: { event: input.type, timestamp: input.at.toISOString(), data: input.booking },
  };
}

/**
 * Writes booking events to the outbox and, for each that an active webhook subscription of its
 * organization and mode wants, enqueues its fan-out job, on the caller's transaction: an event
 * exists if and only if the change commits, and is never lost after. Returns the event ids.
 *
 * Most organizations subscribe to nothing (or not to this event), and a fan-out job that finds
 * nobody to deliver to still costs the queue a fetch and a completion (about a third of a
 * booking create's database time under load). Skipping it is safe because of the shared
 * subscription lock the database takes first, in its own statement
 * (src/db/functions/record_events.sql): a subscription added, re-activated or given new events
 * concurrently either committed before it (and the insert's later snapshot sees it) or waits
 * until these events have committed, so it was not subscribed when they happened.
 */
export async function recordEvents(tx: Tx, inputs: readonly RecordEventInput[]): Promise<string[]> {
  if (inputs.length === 0) return [];
  const events = inputs.map(eventRow);
  for (const w of await insertEvents(tx, events, [...BROADCAST_EVENTS])) {
    if (w.subscribed) await enqueue(tx, 'dispatch-event', { eventId: w.id }, { maxAttempts: DISPATCH_MAX_ATTEMPTS });
  }
  return events.map((e) => e.id);
}
