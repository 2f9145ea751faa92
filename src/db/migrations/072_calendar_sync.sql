-- Calendar sync (docs/calendars.md): CALDAV joins the providers; a CALDAV or APPLE calendar may
-- carry a connection, from which the worker reads busy time and into which it writes bookings.
-- (whatever the provider check is named: a rewritten baseline schema may name it otherwise)
do $$
declare c text;
begin
  for c in select conname from pg_constraint
            where conrelid = 'calendars'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%provider%'
  loop
    execute format('alter table calendars drop constraint %I', c);
  end loop;
end $$;
alter table calendars add constraint calendars_provider_check check (provider in ('GOOGLE', 'MICROSOFT', 'APPLE', 'CALDAV'));
-- Why the last sync (or a write-back) failed, without credentials; null after a success.
alter table calendars add column sync_error text;

-- One per connected calendar: where it is, how to log in (the password AES-256-GCM encrypted
-- with WEBHOOK_SECRET_KEY, like webhook secrets) and what the last successful sync saw.
create table calendar_connections (
  calendar_id text primary key references calendars (id) on delete cascade,
  url text not null,
  username text not null,
  password_encrypted text not null,
  -- HMAC-SHA256 of the password under the same key: tells seed whether the file's password
  -- changed without decrypting (or storing) it.
  password_digest text not null,
  -- RFC 6578 token and CalendarServer ctag of the last successful sync; null: read everything.
  sync_token text,
  ctag text,
  -- The busy window the stored blocks were expanded for; a sync in a later window re-expands
  -- the stored resources (no request) so the horizon moves with the calendar day.
  window_start timestamptz,
  window_end timestamptz,
  -- The running sync's lease: a sync claims the calendar by setting it, and only the claimant may
  -- write the outcome (a sync whose lease ran out, its worker presumed dead, writes nothing).
  sync_lease text,
  sync_lease_until timestamptz,
  -- When the last sync began and ended (success or not), for scheduling.
  last_attempt_at timestamptz,
  -- A write-back that failed for good (names the booking); the calendar shows ERROR while set.
  write_error text,
  events_read integer not null default 0,
  skipped integer not null default 0
);

-- Each calendar object (CalDAV resource) of a connected calendar as last read: its ETag and text,
-- so an incremental sync replaces only the resources that changed.
create table calendar_resources (
  calendar_id text not null references calendar_connections (calendar_id) on delete cascade,
  href text not null,
  etag text,
  data text not null,
  events integer not null,
  skipped integer not null,
  primary key (calendar_id, href)
);

-- Busy blocks of a member from one resource of one connected calendar, bounded to the sync window.
create table calendar_busy (
  calendar_id text not null,
  href text not null,
  member_id uuid not null references members (id) on delete cascade,
  start_time timestamptz not null,
  end_time timestamptz not null,
  foreign key (calendar_id, href) references calendar_resources (calendar_id, href) on delete cascade,
  check (end_time > start_time)
);
create index calendar_busy_member on calendar_busy (member_id, start_time);
create index calendar_busy_resource on calendar_busy (calendar_id, href);

-- Bookings written to a host's calendar: one row per meeting (the reschedule chain's root) and
-- calendar, with the resource's ETag for conditional updates and deletes.
create table calendar_event_writes (
  root_booking_id text not null,
  calendar_id text not null references calendars (id) on delete cascade,
  href text not null,
  etag text,
  sequence integer not null default 0,
  primary key (root_booking_id, calendar_id)
);
