-- A booking's metadata and an event's payload as the service wrote them. jsonb reordered an
-- object's keys (shorter keys first) and kept a number as numeric, so metadata came back in
-- another key order than it was sent and a webhook's `data` in another order than GET shows the
-- booking; `json` keeps the text, and the service reads a number a double would change as its
-- literal (src/lib/exact-json.ts), so metadata is returned exactly as sent (decisions.md §8).
-- Nothing queries inside either column but `payload->` (webhook-deliveries.ts), which json has.
-- create_booking and record_events take the text as a JSON string or, from the release before,
-- the object, so both releases write during a rolling deploy.
-- Both tables are rewritten under an exclusive lock: 27 s for the scale bench's 1 M bookings and
-- 1.9 M events (2.4 GB) on a 2 vCPU machine (docs/operations.md, "Rolling deploys").
alter table bookings alter column metadata type json using metadata::json,
                     alter column metadata set default '{}'::json;
alter table booking_events alter column payload type json using payload::json;
