-- calendars_updated_at_on_insert: trigger calendars_updated_at_on_insert (before insert on calendars).
-- Caller: no TypeScript calls it; seed's calendar upsert fires it (src/db/queries/seed-upserts.ts).
-- Rule: a calendar is never updated before it exists. created_at defaults to clock_timestamp()
-- (it orders the rows one seed transaction writes) and updated_at to now(), the transaction's
-- start, which is earlier: the defaults are repaired, and an updated_at left NULL is filled in
-- (a fresh row is as it was created). An updatedAt the seed file gives is kept.
create or replace function calendars_updated_at_on_insert() returns trigger language plpgsql as $$
begin
  if new.updated_at is null or new.updated_at < new.created_at then
    new.updated_at := new.created_at;
  end if;
  return new;
end $$;

create or replace trigger calendars_updated_at_on_insert before insert on calendars
  for each row execute function calendars_updated_at_on_insert();
