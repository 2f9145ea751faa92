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
 * Writes the events in one statement; answers, per event in order, whether an active webhook
 * subscription of its organization and mode wants it (lists it, or it is one of `everyActive`,
 * the broadcast events), as the statement's snapshot sees it (see lockSubscriptions in
 * webhooks.ts). The fan-out applies the same rule.
 */
export async function insertEvents(
  tx: Tx,
  events: readonly Omit<BookingEventRow, 'created_at'>[],
  everyActive: readonly string[],
): Promise<{ id: string; subscribed: boolean }[]> {
  const written = await rows<{ id: string; subscribed: boolean }>(
    tx,
    `insert into booking_events as e (id, organization_id, mode, booking_id, type, payload)
     select id, organization_id, mode, booking_id, type, payload::jsonb
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
            as v(id, organization_id, mode, booking_id, type, payload)
     returning e.id, exists (select 1 from webhooks w where w.organization_id = e.organization_id and w.mode = e.mode and w.is_active
                              and (e.type = any($7::text[]) or e.type = any(w.events))) as subscribed`,
    [
      events.map((e) => e.id), events.map((e) => e.organization_id), events.map((e) => e.mode), events.map((e) => e.booking_id),
      events.map((e) => e.type), events.map((e) => JSON.stringify(e.payload)), everyActive,
    ],
  );
  // RETURNING follows the rows inserted, which follow unnest's order; matched by id all the same.
  const byId = new Map(written.map((w) => [w.id, w]));
  return events.map((e) => byId.get(e.id)!);
}
