-- When each member was last given a hold, per mode: round-robin's "least recently booked", read by
-- every round-robin create for each candidate (busyOfMembers, src/db/queries/busy.ts). It was the
-- max of member_booking_counts.last_booked_at over all the member's months: one row per month,
-- each on its own page, so at two years of history a create of the scale bench (20 candidates, 28
-- months each) read 620 of its statement's 1,199 buffers for it. One row per member and mode is
-- one index probe each. Kept by the same trigger as member_booking_counts
-- (src/db/functions/member_booking_counts_hold.sql), which adds a HOT update of this row per hold.
create table member_last_booked (
  member_id uuid not null references members (id),
  mode text not null,
  last_booked_at timestamptz not null,
  primary key (member_id, mode)
);

insert into member_last_booked (member_id, mode, last_booked_at)
select member_id, mode, max(last_booked_at) from member_booking_counts group by member_id, mode;
