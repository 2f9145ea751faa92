-- member_busy_days_rebuild: member_busy_days computed afresh from the holds.
-- Caller: member_busy_days_sync.sql, once, when it first creates its trigger; bulk loads that
-- write holds with triggers off (bench/scale-data.ts).
-- Rule: the caller keeps hold writes out until it commits (a lock on booking_members, or no
-- other writer), else a hold written meanwhile may be missed or counted twice.
create or replace function member_busy_days_rebuild() returns void
  language plpgsql as $$
begin
  delete from member_busy_days;
  insert into member_busy_days (member_id, mode, day, holds)
  select member_id, mode, (start_time at time zone 'UTC')::date,
         string_agg(hold_busy_record(during_start_ms, during_end_ms, start_ms), ''::bytea)
    from booking_members
   where active
   group by 1, 2, 3;
end $$;
