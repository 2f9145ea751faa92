-- Retention (docs/operations.md; src/db/queries/retention.ts) deletes the oldest rows of the
-- tables that only grow, a small batch at a time in creation order. These indexes make each
-- batch an index range scan from the oldest row, whatever the table's size: without them every
-- batch would read the table from the start, past the space the batches before it emptied.
-- Timestamps only grow, so each index is appended at its right edge (cheap for the writes).
-- idempotency_keys has its own in the baseline schema (idempotency_keys_created).
create index booking_events_created on booking_events (created_at);
create index webhook_messages_created on webhook_messages (created_at);
create index email_outbox_created on email_outbox (created_at);
