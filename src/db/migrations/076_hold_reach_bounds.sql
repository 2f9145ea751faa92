-- A hold reaches at most 24 hours before its start (buffer_before <= 1440 minutes) and at most
-- 48 hours after it (duration and buffer_after <= 1440 minutes each: EVENT_TYPE_LIMITS in
-- src/domain/event-types/limits.ts). busyOfMembers (src/db/queries/busy.ts) relies on it: it
-- finds the holds overlapping a window through the (member_id, mode, start_time) btree, bounding
-- start_time by exactly these reaches, so the database states them rather than the API's limits
-- alone. Hours, not days: a day of a timestamptz depends on the session's time zone.
alter table booking_members add constraint booking_members_during_near_start
  check (lower(during) >= start_time - interval '24 hours' and upper(during) <= start_time + interval '48 hours') not valid;
alter table booking_members validate constraint booking_members_during_near_start;
