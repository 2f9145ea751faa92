-- The worker pool that sends a pending attempt. A webhook send no longer holds its job's slot
-- (src/domain/webhooks/sends.ts): the job that opens an attempt starts the send and ends, so the
-- sweeper can no longer tell a live send by a locked job. It leaves an attempt alone while the
-- pool named here lives (worker_pool_is_alive), for a minute at most. Null for attempts opened
-- by the release before (their job holds them, as before). A nullable column without a default:
-- no table rewrite.
alter table webhook_deliveries add column sent_by text;
