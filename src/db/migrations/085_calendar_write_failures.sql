-- Meetings whose write-back to a calendar failed for good (CALENDAR_WRITE_ATTEMPTS used up): the
-- next successful sync of that calendar, proof its server answers again, queues each of them once
-- more (retry_queued), so a booking made while the server was down still reaches the host's
-- calendar. A write of the meeting that succeeds, or finds nothing left to write, removes its row.
create table calendar_write_failures (
  calendar_id text not null references calendars (id) on delete cascade,
  root_booking_id text not null,
  retry_queued boolean not null default false,
  primary key (calendar_id, root_booking_id)
);
