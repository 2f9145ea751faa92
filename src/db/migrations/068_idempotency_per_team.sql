-- api-spec Limits ("scoped per team") and decisions §4 ("per team and mode"): an Idempotency-Key
-- record belongs to the team the request acts on (the event type's team for a create, the
-- booking's for a change, the body's team_id for a new event type). Requests about no one team
-- (webhooks) keep the organization-wide team ''.
alter table idempotency_keys add column team_id text not null default '';
alter table idempotency_keys drop constraint idempotency_keys_pkey;
alter table idempotency_keys add primary key (organization_id, mode, team_id, key);
-- The same request (same fingerprint) under the same key is one request whatever team it is
-- filed under now: an event type moved to another team, or a record from before this
-- migration (team ''), still replays. Found by key across teams.
create index idempotency_keys_by_key on idempotency_keys (organization_id, mode, key);
