-- email_outbox_unsent, (created_at) where status in ('pending', 'failed'), was read by no query
-- (an email is sent by the job that carries its id, and retried by that job's retries), yet
-- every new email wrote an entry in it, and its predicate names `status`, so recording an
-- attempt (pending → logged, sent or failed) could never be a HOT update. Without it an attempt
-- changes no index column: it is HOT when the row's page has room, which for emails of about
-- 1 KB, packed as they are inserted, is seldom (296 of 7,916 attempts on the creates bench);
-- the saving is mostly the index entry each email no longer writes. docs/database.md,
-- "Updates that add no index entry".
drop index email_outbox_unsent;
