-- record_events: writes booking events to the outbox (booking_events) and answers, per event,
-- whether an active subscription of its organization and mode wants it.
-- Caller: insertEvents in src/db/queries/booking-events.ts (recordEvents, src/domain/events/record.ts,
-- which enqueues the fan-out of the wanted ones), and create_booking.
-- Rule: every event is written in the transaction of its change, and the answer "no
-- subscription wants it" is final: the shared subscription lock (lock_subscriptions) comes
-- first, in its own statement, so the insert's later snapshot sees every subscription committed
-- before the lock was granted, and one committed after waited for these events. BOOKING_UPDATED,
-- in `broadcast`, goes to every active subscription.
-- A payload is a JSON string holding the payload's text, stored as written (so a booking's
-- metadata keeps its key order and number literals, decisions.md §8), or, as the release before
-- migration 086 sends it, the payload itself (stored as jsonb writes it); both run against one
-- database during a rolling deploy.
create or replace function record_events(ids text[], orgs text[], modes text[], booking_ids text[], types text[], payloads jsonb[],
                                         broadcast text[])
  returns table (event_id text, subscribed boolean)
  language plpgsql as $$
begin
  perform lock_subscriptions(orgs, modes, false);
  return query
    insert into booking_events as e (id, organization_id, mode, booking_id, type, payload)
    select u.id, u.org, u.mode, u.booking_id, u.type,
           case jsonb_typeof(u.payload) when 'string' then (u.payload #>> '{}')::json else u.payload::json end
      from unnest(ids, orgs, modes, booking_ids, types, payloads) as u(id, org, mode, booking_id, type, payload)
    returning e.id, exists (select 1 from webhooks w where w.organization_id = e.organization_id and w.mode = e.mode and w.is_active
                             and (e.type = any(broadcast) or e.type = any(w.events)));
end $$;
