import type { Tx } from '../pool.ts';
import type { BookingEventRow } from '../schema.ts';
import { rows } from '../pool.ts';

/**
 * Writes the events in one statement (src/db/functions/record_events.sql, which takes the shared
 * subscription lock first); answers, per event in order, whether an active webhook
 * subscription of its organization and mode wants it (lists it, or it is one of `everyActive`,
 * the broadcast events). The fan-out applies the same rule.
 */
export async function insertEvents(
  tx: Tx,
  events: readonly Omit<BookingEventRow, 'created_at'>[],
  everyActive: readonly string[],
): Promise<{ id: string; subscribed: boolean }[]> {
  const written = await rows<{ event_id: string; subscribed: boolean }>(
    tx,
    `select event_id, subscribed
       from record_events(ids => $1::text[], orgs => $2::text[], modes => $3::text[], booking_ids => $4::text[], types => $5::text[],
                          payloads => $6::jsonb[], broadcast => $7::text[])`,
    [
      events.map((e) => e.id),
      events.map((e) => e.organization_id),
      events.map((e) => e.mode),
      events.map((e) => e.booking_id),
      events.map((e) => e.type),
      // each payload as a JSON string of its text, which record_events stores as written
      events.map((e) => JSON.stringify(JSON.stringify(e.payload))),
      everyActive,
    ],
  );
  // RETURNING follows the rows inserted, which follow unnest's order; matched by id all the same.
  const byId = new Map(written.map((w) => [w.event_id, w.subscribed]));
  return events.map((e) => ({ id: e.id, subscribed: byId.get(e.id)! }));
}
