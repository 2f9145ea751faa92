-- member_booking_counts_cancel: trigger bookings_cancel_count (after a booking's status becomes CANCELLED).
-- Caller: no TypeScript calls it; every cancel and reschedule fires it (src/db/queries/bookings.ts).
-- Rule: a cancelled booking no longer counts for its members in member_booking_counts. Their
-- rows are locked first, as every hold locks its member before its count changes: without
-- that, a reschedule (which cancels the old booking, then waits for the member's lock to hold
-- the new one) and a create holding that member could each wait for the other.
create or replace function member_booking_counts_cancel() returns trigger language plpgsql as $$
begin
  perform 1 from members m
    where m.id in (select bm.member_id from booking_members bm where bm.booking_id = new.id)
    order by m.id
    for no key update;
  update member_booking_counts c set booked = c.booked - 1
    from booking_members bm
   where bm.booking_id = new.id
     and c.member_id = bm.member_id and c.mode = bm.mode and c.period_start = date_trunc('month', bm.start_time, 'UTC');
  return null;
end $$;

create or replace trigger bookings_cancel_count after update of status on bookings
  for each row when (new.status = 'CANCELLED' and old.status <> 'CANCELLED')
  execute function member_booking_counts_cancel();
