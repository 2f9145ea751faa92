-- Round-robin routing picks the host with the fewest bookings in the period (held or closed as
-- completed / no-show, so the partial index of active holds does not serve it), ties to the
-- least recently booked: a hold remembers when it was taken.
alter table booking_members add column created_at timestamptz not null default now();
create index booking_members_member_start on booking_members (member_id, mode, start_time);
create index booking_members_member_created on booking_members (member_id, mode, created_at desc);
-- GET /bookings?attendee_email= compares case-insensitively.
create index bookings_attendee_email on bookings (organization_id, mode, lower(attendee ->> 'email'));
-- Reschedule chains are followed by id in both directions.
create index bookings_rescheduled_from on bookings (rescheduled_from) where rescheduled_from is not null;
