-- api-spec Limits ("scoped per team") and decisions §4 ("per team and mode"): an Idempotency-Key
-- record belongs to the team the request acts on (the event type's team for a create, the
-- booking's for a change, the body's team_id for a new event type). Requests about no one team
-- (webhooks) keep the organization-wide team ''.
alter table idempotency_keys add column team_id text not null default '';
alter table idempotency_keys drop constraint idempotency_keys_pkey;
alter table idempotency_keys add primary key (organization_id, mode, team_id, key);
