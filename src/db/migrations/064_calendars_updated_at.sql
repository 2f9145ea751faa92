-- created_at defaults to clock_timestamp() (it orders the rows one seed transaction writes) and
-- updated_at defaulted to now(), the transaction's start: a fresh row looked updated a few ms
-- before it was created. Both now take the statement's clock, updated_at from created_at's
-- value when the row is inserted (trigger), so a record is never updated before it exists.
create function calendars_updated_at_on_insert() returns trigger language plpgsql as $$
begin
  new.updated_at := new.created_at;
  return new;
end $$;
create trigger calendars_updated_at_on_insert before insert on calendars
  for each row execute function calendars_updated_at_on_insert();
update calendars set updated_at = created_at where updated_at < created_at;
