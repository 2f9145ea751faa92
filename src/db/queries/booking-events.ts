import type { Tx } from '../pool.ts';
import { rows } from '../pool.ts';

export type BookingEventType =
  | 'BOOKING_CREATED'
  | 'BOOKING_UPDATED'
  | 'BOOKING_CANCELLED'
  | 'BOOKING_RESCHEDULED'
  | 'BOOKING_COMPLETED'
  | 'BOOKING_NO_SHOW'
  | 'ASSIGNMENT_CHANGED';

export interface BookingEventRow {
  id: string;
  organization_id: string;
  mode: 'test' | 'live';
  booking_id: string | null;
  type: BookingEventType;
  payload: { event: BookingEventType; timestamp: string; data: Record<string, unknown> };
  created_at: Date;
}

/**
 * Writes the events and enqueues `dispatchTask` for each that an active webhook subscription of
 * its organization and mode wants (lists it, or it is one of `everyActive`, the broadcast
 * events), in one statement (record_events, migration 065, which takes the shared subscription
 * lock first). Answers, per event in order, whether it was subscribed. The fan-out applies the
 * same rule.
 */
export async function insertEvents(
  tx: Tx,
  events: readonly Omit<BookingEventRow, 'created_at'>[],
  everyActive: readonly string[],
  dispatchTask: string,
): Promise<{ id: string; subscribed: boolean }[]> {
  const written = await rows<{ event_id: string; subscribed: boolean }>(
    tx,
    'select event_id, subscribed from record_events($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::text[], $8)',
    [
      events.map((e) => e.id), events.map((e) => e.organization_id), events.map((e) => e.mode), events.map((e) => e.booking_id),
      events.map((e) => e.type), events.map((e) => JSON.stringify(e.payload)), everyActive, dispatchTask,
    ],
  );
  return written.map((w) => ({ id: w.event_id, subscribed: w.subscribed }));
}
