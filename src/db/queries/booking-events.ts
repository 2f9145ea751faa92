import type { Tx } from '../pool.ts';
import { one } from '../pool.ts';

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
 * Writes the event; answers whether an active webhook subscription of its organization and mode
 * wants it (lists it, or it is one of `everyActive`, the broadcast events), as the statement's
 * snapshot sees it (see lockSubscriptions in webhooks.ts). The fan-out applies the same rule.
 */
export async function insertEvent(tx: Tx, e: Omit<BookingEventRow, 'created_at'>, everyActive: readonly string[]): Promise<{ subscribed: boolean }> {
  const row = await one<{ subscribed: boolean }>(
    tx,
    `insert into booking_events (id, organization_id, mode, booking_id, type, payload) values ($1, $2, $3, $4, $5, $6)
     returning exists (select 1 from webhooks w where w.organization_id = $2 and w.mode = $3 and w.is_active
                          and ($5 = any($7::text[]) or $5 = any(w.events))) as subscribed`,
    [e.id, e.organization_id, e.mode, e.booking_id, e.type, JSON.stringify(e.payload), everyActive],
  );
  return row!;
}
