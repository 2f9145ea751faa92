-- Round-robin's figures per host, kept by the database as holds come and go instead of
-- counted at every create (a range scan per host that grew with the month's bookings: 1.3 ms
-- of a create's database time at 4,000 bookings). `booked`: the member's holds starting in the
-- UTC month whose booking is not cancelled (held, or closed as completed / no-show);
-- `last_booked_at`: when the member last got a hold starting in that month (the latest over
-- all months is when it was last booked at all).
create table member_booking_counts (
  member_id uuid not null references members (id),
  mode text not null,
  period_start timestamptz not null,
  booked integer not null,
  last_booked_at timestamptz not null,
  primary key (member_id, mode, period_start)
);

insert into member_booking_counts (member_id, mode, period_start, booked, last_booked_at)
select bm.member_id, bm.mode, date_trunc('month', bm.start_time, 'UTC'),
       count(*) filter (where bm.active or b.status <> 'CANCELLED'), max(bm.created_at)
  from booking_members bm join bookings b on b.id = bm.booking_id
 group by 1, 2, 3;

-- Every booking path inserts its holds active; a hold written inactive (an import of history)
-- counts unless its booking is cancelled, though it is a booking the member was given all the same.
create function member_booking_counts_hold() returns trigger language plpgsql as $$
declare
  counted integer := 1;
begin
  if not new.active and (select b.status from bookings b where b.id = new.booking_id) = 'CANCELLED' then
    counted := 0;
  end if;
  insert into member_booking_counts as c (member_id, mode, period_start, booked, last_booked_at)
  values (new.member_id, new.mode, date_trunc('month', new.start_time, 'UTC'), counted, new.created_at)
  on conflict (member_id, mode, period_start) do update
    set booked = c.booked + excluded.booked, last_booked_at = greatest(c.last_booked_at, excluded.last_booked_at);
  return null;
end $$;

create trigger booking_members_count after insert on booking_members
  for each row execute function member_booking_counts_hold();

-- A cancelled booking no longer counts for its members. Their rows are locked first, as every
-- hold locks its member before its count changes: without that, a reschedule (which cancels the
-- old booking, then waits for the member's lock to hold the new one) and a create holding that
-- member could each wait for the other.
create function member_booking_counts_cancel() returns trigger language plpgsql as $$
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

create trigger bookings_cancel_count after update of status on bookings
  for each row when (new.status = 'CANCELLED' and old.status <> 'CANCELLED')
  execute function member_booking_counts_cancel();
