-- Webhook subscriptions, the messages owed to them (one per event and subscription) and one
-- delivery record per HTTP attempt. See docs/webhooks.md.
create table webhooks (
  id text primary key,
  organization_id text not null references organizations (id),
  -- test-mode webhooks receive only test-mode events, live only live (decisions.md §3)
  mode text not null check (mode in ('test', 'live')),
  url text not null,
  events text[] not null,
  description text,
  -- AES-256-GCM ciphertext of the whsec_ secret under WEBHOOK_SECRET_KEY: a dump alone does not reveal it
  secret_encrypted text not null,
  is_active boolean not null default true,
  failure_reason text,
  -- failed attempts in a row across events; any success resets it; 10 disables the webhook
  consecutive_failures integer not null default 0,
  rotated_at timestamptz,
  -- POST /webhooks/{id}/test is allowed once a minute; kept here so every process agrees
  last_test_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhooks_org_mode on webhooks (organization_id, mode, created_at);

-- What one subscription is owed for one event: the exact body (signed anew at each attempt)
-- and where its retry schedule stands. Its id is the Standard Webhooks `webhook-id`.
create table webhook_messages (
  id text primary key,
  webhook_id text not null references webhooks (id) on delete cascade,
  event_id text not null,
  event_type text not null,
  is_test boolean not null default false,
  body text not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  -- the schedule position (1-based) of the attempt to make next; an interrupted attempt keeps it
  next_position integer not null default 1,
  created_at timestamptz not null default now(),
  -- the fan-out job may run twice (at-least-once); the second time adds nothing
  unique (event_id, webhook_id)
);

create table webhook_deliveries (
  id text primary key,
  message_id text not null references webhook_messages (id) on delete cascade,
  webhook_id text not null references webhooks (id) on delete cascade,
  event_id text not null,
  event_type text not null,
  -- 1, 2, ... per message in the order made (an interrupted attempt has its own number)
  attempt integer not null,
  status text not null check (status in ('pending', 'succeeded', 'failed')),
  response_status integer,
  duration_ms integer,
  error text,
  created_at timestamptz not null default clock_timestamp(),
  next_attempt_at timestamptz,
  unique (message_id, attempt)
);
create index webhook_deliveries_history on webhook_deliveries (webhook_id, created_at desc, id desc);
create index webhook_deliveries_pending on webhook_deliveries (message_id) where status = 'pending';
