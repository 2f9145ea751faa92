-- Configuration that `seed` loads (the API reads it; event types are also written by the API).
create table organizations (
  id text primary key,
  name text not null,
  cancellation_enabled boolean not null default true,
  cancellation_cutoff_minutes integer not null default 0 check (cancellation_cutoff_minutes >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table teams (
  id text primary key,
  organization_id text not null references organizations (id),
  name text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index teams_org on teams (organization_id);

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

create table out_of_office (
  id bigserial primary key,
  member_id uuid not null references members (id) on delete cascade,
  start_time timestamptz not null,
  end_time timestamptz not null check (end_time > start_time),
  reason text
);
create index out_of_office_member on out_of_office (member_id, start_time);

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

-- Idempotency-Key records (IETF draft): one per (organization, mode, key), kept 24 hours.
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
  primary key (organization_id, mode, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);
