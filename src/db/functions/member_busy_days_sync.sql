-- member_busy_days_sync: trigger booking_members_busy_days (after a hold is inserted, deleted, or
-- has its activity or interval changed).
-- Caller: no TypeScript calls it; every hold written (insert_hold_within_cap) and released
-- (release, src/db/queries/booking-members.ts) fires it. Its rows are read by busyOfMembers
-- (src/db/queries/busy.ts) for ranges of days.
-- Rule: member_busy_days holds, for each member, mode and UTC day, exactly one 16-byte record
-- per active hold starting in that day (hold_busy_record), and no row for a day
-- without one.
--
-- Both writes are single statements on the day's row, so two transactions changing the same day
-- at once cannot lose each other's change: under READ COMMITTED the second waits for the first's
-- row lock and then applies its append or removal to the row as the first committed it.
create or replace function member_busy_days_sync() returns trigger language plpgsql as $$
declare
  left_over bytea;
  old_day date;
begin
  if tg_op in ('UPDATE', 'DELETE') and old.active then
    old_day := (old.start_time at time zone 'UTC')::date;
    -- the hold's record is the one starting at its interval's start: active holds of a member
    -- and mode never overlap (booking_members_no_overlap), so no other record of the day has it
    update member_busy_days d
       set holds = (select coalesce(string_agg(substring(d.holds from i + 1 for 16), ''::bytea), ''::bytea)
                      from generate_series(0, length(d.holds) - 16, 16) i
                     where substring(d.holds from i + 1 for 8) <> int8send(old.during_start_ms))
     where d.member_id = old.member_id and d.mode = old.mode and d.day = old_day
    returning d.holds into left_over;
    if left_over = ''::bytea then
      delete from member_busy_days d
       where d.member_id = old.member_id and d.mode = old.mode and d.day = old_day and d.holds = ''::bytea;
    end if;
  end if;
  if tg_op in ('INSERT', 'UPDATE') and new.active then
    insert into member_busy_days as d (member_id, mode, day, holds)
    values (new.member_id, new.mode, (new.start_time at time zone 'UTC')::date,
            hold_busy_record(new.during_start_ms, new.during_end_ms, new.start_ms))
    on conflict (member_id, mode, day) do update set holds = d.holds || excluded.holds;
  end if;
  return null;
end $$;

-- The first time (migration 082 created the table empty): fill it from the holds with their
-- writers locked out until this transaction commits, so none is missed between the migration and
-- the trigger. SHARE ROW EXCLUSIVE, which the trigger's creation takes anyway: it waits for the
-- hold writes under way and holds off new ones.
do $$
begin
  lock table booking_members in share row exclusive mode;
  if not exists (select from pg_trigger where tgrelid = 'booking_members'::regclass and tgname = 'booking_members_busy_days') then
    perform member_busy_days_rebuild();
  end if;
end $$;

create or replace trigger booking_members_busy_days
  after insert or delete or update of active, during, start_time, member_id, mode on booking_members
  for each row execute function member_busy_days_sync();
