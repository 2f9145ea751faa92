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
