create extension if not exists btree_gist;

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
  rescheduled_to text references bookings (id),
  -- optimistic concurrency: every update bumps it
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index bookings_external_id on bookings (organization_id, mode, external_id) where external_id is not null;
-- the list order (newest first) with its keyset cursor
create index bookings_list on bookings (organization_id, mode, created_at desc, id desc);
create index bookings_event_type on bookings (event_type_id, status);

-- The members a booking occupies and the interval it blocks for them: [start - buffer_before,
-- end + buffer_after). The exclusion constraint is the promise that no member ever holds two
-- active bookings of the same mode whose buffered intervals overlap.
create table booking_members (
  booking_id text not null references bookings (id) on delete cascade,
  member_id uuid not null references members (id),
  mode text not null,
  start_time timestamptz not null,
  during tstzrange not null,
  active boolean not null default true,
  primary key (booking_id, member_id),
  constraint booking_members_no_overlap exclude using gist (member_id with =, mode with =, during with &&) where (active)
);
create index booking_members_member_time on booking_members (member_id, mode, start_time) where active;

-- The transactional outbox of booking events: written in the same transaction as the change;
-- webhook fan-out and delivery read from it.
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
