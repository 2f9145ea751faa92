-- Seed files may give a calendar's createdAt and updatedAt (the spec's calendar fields). The
-- insert trigger of migration 064 set updated_at to created_at unconditionally, which would
-- overwrite a given updatedAt; it only has to repair the defaults (updated_at = now(), the
-- transaction's start, is earlier than created_at = clock_timestamp()) and fill in an
-- updated_at left NULL (a fresh row is as it was created).
create or replace function calendars_updated_at_on_insert() returns trigger language plpgsql as $$
begin
  if new.updated_at is null or new.updated_at < new.created_at then
    new.updated_at := new.created_at;
  end if;
  return new;
end $$;
