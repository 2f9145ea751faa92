-- member_booking_counts.last_booked_at (when the member last got a hold starting in that month)
-- has been read by nothing since member_last_booked (080) keeps the latest over all months: the
-- hold trigger (src/db/functions/member_booking_counts_hold.sql, replaced right after this
-- migration) stops writing it, and the column goes.
alter table member_booking_counts drop column last_booked_at;
