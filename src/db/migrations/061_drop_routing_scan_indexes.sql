-- The round-robin count and last-booked scans these served are gone (member_booking_counts,
-- migration 060); every hold paid for their upkeep.
drop index booking_members_member_start;
drop index booking_members_member_created;
