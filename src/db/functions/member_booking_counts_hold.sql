-- member_booking_counts_hold: trigger booking_members_count (after insert on booking_members).
-- Caller: no TypeScript calls it; every hold insert fires it (insert_hold_within_cap). Its
-- figures are read by round-robin routing (src/db/queries/busy.ts).
-- Rule: member_booking_counts.booked is the number of the member's holds starting in the UTC
-- month whose booking is not cancelled, and member_last_booked.last_booked_at the latest hold's
-- created_at over all months (migration 080). Every
-- booking path inserts its holds active; a hold written inactive (an import of history) counts
-- unless its booking is cancelled.
--
-- `new.active` is tested alone first: a simple expression plpgsql needs no planner run for,
-- where a combined test with the subquery was planned again on every row (about 40 µs per
-- create). The lookup stays for the rare inactive hold.
create or replace function member_booking_counts_hold() returns trigger language plpgsql as $$
declare
  counted integer := 1;
begin
  if not new.active then
    if (select b.status from bookings b where b.id = new.booking_id) = 'CANCELLED' then
      counted := 0;
    end if;
  end if;
  insert into member_booking_counts as c (member_id, mode, period_start, booked)
  values (new.member_id, new.mode, date_trunc('month', new.start_time, 'UTC'), counted)
  on conflict (member_id, mode, period_start) do update set booked = c.booked + excluded.booked;
  insert into member_last_booked as l (member_id, mode, last_booked_at)
  values (new.member_id, new.mode, new.created_at)
  on conflict (member_id, mode) do update
    set last_booked_at = greatest(l.last_booked_at, excluded.last_booked_at);
  return null;
end $$;

create or replace trigger booking_members_count after insert on booking_members
  for each row execute function member_booking_counts_hold();
