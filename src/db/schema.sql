-- The current schema: every table, constraint and index of the service, as a database migrated
-- by `migrate` has them. Read it top to bottom; one comment per table says what it holds.
--
-- Applied once, to an empty database, by src/db/migrate.ts. Database functions (and the
-- triggers that call them) are not here: they live one per file in src/db/functions/ and are
-- replaced on every migrate. Changes after this baseline are numbered files in
-- src/db/migrations/ (072 and later); this file is never edited for them.
-- graphile-worker keeps its own schema (graphile_worker), installed by its own migrations.

-- The exclusion constraint of booking_members compares text and uuid equality inside a GiST index.
create extension if not exists btree_gist;

-- ---------------------------------------------------------------------------------------------
-- Configuration: what `seed` loads (the API reads it; event types are also written by the API).
-- ---------------------------------------------------------------------------------------------

-- A customer account: its cancellation policy, and the version of its configuration that
-- cached availability answers are keyed by.
create table organizations (
  id text primary key,
  name text not null,
  cancellation_enabled boolean not null default true,
  cancellation_cutoff_minutes integer not null default 0 check (cancellation_cutoff_minutes >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Bumped by `seed` whenever it changes the organization's configuration (working hours,
  -- out-of-office, members, event types), so cached availability answers, which are keyed by
  -- it, are dropped at once by every process instead of living out their TTL.
  schedule_version bigint not null default 0
);

-- A team of an organization: members, event types and calendars belong to one.
create table teams (
  id text primary key,
  organization_id text not null references organizations (id),
  name text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index teams_org on teams (organization_id);

-- A person who can host bookings: time zone, working hours and the per-day cap on bookings.
-- A hold locks its member's row (FOR NO KEY UPDATE) before it counts the member's day.
create table members (
  id uuid primary key,
  organization_id text not null references organizations (id),
  team_id text not null references teams (id),
  name text not null,
  email text not null,
  avatar_url text,
  role text not null default 'MEMBER',
  skills text[] not null default '{}',
  is_active boolean not null default true,
  timezone text not null,
  max_bookings_per_day integer not null default 8 check (max_bookings_per_day >= 0),
  -- [{days: ["MON", ...], start: "HH:MM", end: "HH:MM"}] in the member's own time zone
  working_hours jsonb not null default '[]',
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default now()
);
create index members_org_team on members (organization_id, team_id);

-- A member's absences: time availability never offers.
create table out_of_office (
  id bigserial primary key,
  member_id uuid not null references members (id) on delete cascade,
  start_time timestamptz not null,
  end_time timestamptz not null check (end_time > start_time),
  reason text
);
create index out_of_office_member on out_of_office (member_id, start_time);

-- What can be booked: duration, slot grid, buffers, notice, how hosts are chosen
-- (scheduling_type) and who hosts. Soft-deleted (deleted_at) so bookings keep their type.
create table event_types (
  id text primary key,
  organization_id text not null references organizations (id),
  team_id text not null references teams (id),
  name text not null,
  slug text not null,
  description text,
  duration integer not null check (duration > 0),
  slot_interval integer not null check (slot_interval > 0),
  buffer_before integer not null default 0 check (buffer_before >= 0),
  buffer_after integer not null default 0 check (buffer_after >= 0),
  minimum_booking_notice integer not null default 0 check (minimum_booking_notice >= 0),
  scheduling_type text not null check (scheduling_type in ('SOLO', 'ROUND_ROBIN', 'COLLECTIVE')),
  requires_confirmation boolean not null default false,
  mode text not null default 'SIMPLE',
  is_active boolean not null default true,
  is_personal boolean not null default false,
  owner_id uuid references members (id),
  external_id text,
  workload jsonb not null,
  -- null: every active member of the team hosts this type
  host_ids uuid[],
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create unique index event_types_slug on event_types (organization_id, slug) where deleted_at is null;
create unique index event_types_external_id on event_types (organization_id, external_id)
  where deleted_at is null and external_id is not null;
create index event_types_org_name on event_types (organization_id, name);

-- The questions an event type asks the attendee (bookings' custom_fields answer them).
create table event_type_custom_fields (
  id text primary key,
  event_type_id text not null references event_types (id) on delete cascade,
  key text not null,
  label text not null,
  type text not null,
  required boolean not null default false,
  options jsonb,
  position integer not null,
  unique (event_type_id, key)
);

-- A member's connected calendars (the spec's calendar objects) and where their sync stands.
-- Trigger calendars_updated_at_on_insert (src/db/functions/calendars_updated_at_on_insert.sql)
-- keeps a fresh row from looking updated before it was created.
create table calendars (
  id text primary key,
  organization_id text not null references organizations (id),
  user_id uuid not null references members (id),
  team_id text not null references teams (id),
  provider text not null check (provider in ('GOOGLE', 'MICROSOFT', 'APPLE')),
  calendar_id text not null,
  calendar_name text,
  provider_email text,
  timezone text,
  is_primary boolean not null default false,
  sync_status text not null default 'PENDING'
    check (sync_status in ('PENDING', 'SYNCING', 'SUCCESS', 'ERROR', 'NEEDS_REAUTH')),
  last_sync_at timestamptz,
  supports_webhooks boolean not null default false,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default now()
);
create index calendars_org on calendars (organization_id, is_primary desc, created_at);

-- ---------------------------------------------------------------------------------------------
-- Access
-- ---------------------------------------------------------------------------------------------

-- API keys (publishable or secret, test or live) by the hash of the key; the key itself is
-- shown once, at creation.
create table api_keys (
  id text primary key,
  organization_id text not null references organizations (id),
  name text not null,
  -- sha256 of the whole key: keys are long random strings, so a fast hash is enough, and
  -- lookup by hash needs no per-key salt.
  key_hash text not null unique,
  key_prefix text not null,
  kind text not null check (kind in ('publishable', 'secret')),
  mode text not null check (mode in ('test', 'live')),
  scopes text[] not null,
  allowed_origins text[],
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

-- Idempotency-Key records (IETF draft): one per (organization, mode, team, key), kept 24 hours;
-- the stored response is replayed for the same request.
create table idempotency_keys (
  organization_id text not null references organizations (id),
  mode text not null,
  key text not null,
  request_hash text not null,
  state text not null check (state in ('running', 'done')),
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default now(),
  locked_until timestamptz,
  -- api-spec Limits ("scoped per team") and decisions §4 ("per team and mode"): the team the
  -- request acts on (the event type's team for a create, the booking's for a change, the body's
  -- team_id for a new event type). Requests about no one team (webhooks) use ''.
  team_id text not null default '',
  primary key (organization_id, mode, team_id, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);
-- The same request (same fingerprint) under the same key is one request whatever team it is
-- filed under now (an event type moved to another team still replays): found by key across teams.
create index idempotency_keys_by_key on idempotency_keys (organization_id, mode, key);

-- ---------------------------------------------------------------------------------------------
-- Bookings
-- ---------------------------------------------------------------------------------------------

-- A booking as the API shows it: its status, time, attendee and assignment. Trigger
-- bookings_cancel_count (src/db/functions/member_booking_counts_cancel.sql) uncounts a
-- cancelled booking from member_booking_counts.
create table bookings (
  id text primary key,
  organization_id text not null references organizations (id),
  -- test-mode and live-mode objects never see each other (decisions.md §3)
  mode text not null check (mode in ('test', 'live')),
  event_type_id text not null references event_types (id),
  status text not null check (status in
    ('DRAFT', 'SCHEDULED', 'PENDING_CONFIRMATION', 'RESCHEDULED', 'CANCELLED', 'COMPLETED', 'NO_SHOW')),
  start_time timestamptz not null,
  end_time timestamptz not null check (end_time > start_time),
  attendee jsonb not null,
  custom_fields jsonb not null default '{}',
  metadata jsonb not null default '{}',
  external_id text,
  -- set by routing; for COLLECTIVE the first host, host_ids lists all
  assigned_to_id uuid references members (id),
  host_ids uuid[] not null default '{}',
  cancellation_reason text,
  cancelled_at timestamptz,
  rescheduled_from text references bookings (id),
  -- A reschedule cancels the old booking (which frees its external_id for the new one) before
  -- it inserts the new booking, so this names a row that exists only later in the same
  -- transaction: checked at commit.
  rescheduled_to text references bookings (id) deferrable initially deferred,
  -- optimistic concurrency: every update bumps it
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index bookings_external_id on bookings (organization_id, mode, external_id) where external_id is not null;
-- the list order (newest first) with its keyset cursor
create index bookings_list on bookings (organization_id, mode, created_at desc, id desc);
create index bookings_event_type on bookings (event_type_id, status);
-- GET /bookings?attendee_email= compares case-insensitively.
create index bookings_attendee_email on bookings (organization_id, mode, lower(attendee ->> 'email'));
-- Reschedule chains are followed by id in both directions.
create index bookings_rescheduled_from on bookings (rescheduled_from) where rescheduled_from is not null;

-- The members a booking occupies and the interval it blocks for them: [start - buffer_before,
-- end + buffer_after). The exclusion constraint is the promise that no member ever holds two
-- active bookings of the same mode whose buffered intervals overlap. Written by hold_members
-- (src/db/functions/); trigger booking_members_count
-- (src/db/functions/member_booking_counts_hold.sql) counts each hold for round-robin.
create table booking_members (
  booking_id text not null references bookings (id) on delete cascade,
  member_id uuid not null references members (id),
  mode text not null,
  start_time timestamptz not null,
  during tstzrange not null,
  active boolean not null default true,
  -- when the hold was taken (round-robin's "least recently booked")
  created_at timestamptz not null default now(),
  primary key (booking_id, member_id),
  constraint booking_members_no_overlap exclude using gist (member_id with =, mode with =, during with &&) where (active),
  -- The per-day cap's count (insert_hold_within_cap) finds "holds starting in the day" among the
  -- holds whose interval overlaps the day: it relies on this.
  constraint booking_members_during_contains_start check (during @> start_time)
);
create index booking_members_member_time on booking_members (member_id, mode, start_time) where active;

-- Round-robin's figures per host, kept by the triggers on booking_members and bookings as holds
-- come and go instead of counted at every create. `booked`: the member's holds starting in the
-- UTC month whose booking is not cancelled (held, or closed as completed / no-show);
-- `last_booked_at`: when the member last got a hold starting in that month (the latest over
-- all months is when it was last booked at all).
create table member_booking_counts (
  member_id uuid not null references members (id),
  mode text not null,
  period_start timestamptz not null,
  booked integer not null,
  last_booked_at timestamptz not null,
  primary key (member_id, mode, period_start)
);

-- The transactional outbox of booking events: written in the same transaction as the change
-- (record_events); webhook fan-out and delivery read from it.
create table booking_events (
  id text primary key,
  organization_id text not null references organizations (id),
  mode text not null,
  booking_id text references bookings (id),
  type text not null check (type in ('BOOKING_CREATED', 'BOOKING_UPDATED', 'BOOKING_CANCELLED',
    'BOOKING_RESCHEDULED', 'BOOKING_COMPLETED', 'BOOKING_NO_SHOW', 'ASSIGNMENT_CHANGED')),
  -- {event, timestamp, data}: data is the booking as GET /bookings/{id} shows it after the change
  payload jsonb not null,
  created_at timestamptz not null default now()
);
create index booking_events_booking on booking_events (booking_id, created_at);

-- ---------------------------------------------------------------------------------------------
-- Webhooks (docs/webhooks.md)
-- ---------------------------------------------------------------------------------------------

-- Webhook subscriptions: where to send which events, the encrypted signing secret, and the
-- failure count that disables one.
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

-- One record per HTTP delivery attempt of a message: its outcome and when the next is due.
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

-- ---------------------------------------------------------------------------------------------
-- Email (docs/email.md)
-- ---------------------------------------------------------------------------------------------

-- Booking emails, rendered when the change that causes them commits (same transaction) and
-- sent by the 'send-email' job. Without SMTP_URL a message is logged and kept here as 'logged'.
create table email_outbox (
  id text primary key,
  organization_id text not null references organizations (id),
  mode text not null check (mode in ('test', 'live')),
  booking_id text references bookings (id),
  kind text not null check (kind in ('scheduled', 'confirmation_request', 'cancelled', 'rescheduled', 'email_changed')),
  recipient_role text not null check (recipient_role in ('attendee', 'host')),
  to_address text not null,
  to_name text,
  subject text not null,
  text_body text not null,
  -- the iCalendar object sent as a text/calendar alternative and an invite.ics attachment
  ics text,
  ics_method text check (ics_method in ('REQUEST', 'CANCEL')),
  ics_uid text,
  ics_sequence integer,
  -- pending: not sent yet (last_error tells why a retry is waiting); failed: every attempt failed
  status text not null default 'pending' check (status in ('pending', 'sent', 'logged', 'failed')),
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
create index email_outbox_booking on email_outbox (booking_id, created_at);
create index email_outbox_unsent on email_outbox (created_at) where status in ('pending', 'failed');

-- One row per calendar UID (the first booking of a reschedule chain): the iCalendar SEQUENCE of
-- the last invitation or cancellation sent for it. Every update bumps it under the row lock, so
-- concurrent changes of one meeting get distinct, increasing numbers in commit order.
create table calendar_sequences (
  uid text primary key,
  organization_id text not null references organizations (id),
  sequence integer not null,
  updated_at timestamptz not null default now()
);

-- ---------------------------------------------------------------------------------------------
-- Workers
-- ---------------------------------------------------------------------------------------------

-- Liveness of worker processes (src/jobs/heartbeat.ts). graphile-worker 0.17 locks the jobs a
-- process fetched under its pool id and keeps them locked for 4 hours if the process dies;
-- a process that stops beating here has its jobs unlocked by the recover-dead-workers task.
create table worker_heartbeats (
  pool_id text primary key,
  seen_at timestamptz not null default now()
);
