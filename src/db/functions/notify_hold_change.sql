-- notify_hold_change: trigger booking_members_notify (after a hold is inserted, deleted, or has
-- its activity, interval, member or mode changed).
-- Caller: no TypeScript calls it; every hold written or released fires it. Its notifications are
-- heard by every API process (listenForBusyChanges, src/db/busy-changes.ts).
-- Rule: when a member's holds change, every API process hears of it at the commit (and never on
-- a rollback), so that an availability or free/busy answer cached in its memory for that member
-- is dropped at once, whichever process made the change (docs/scheduling.md, "The cache").
-- The payload is `holds:<member id>`; PostgreSQL sends one notification per distinct payload
-- and transaction, however many rows name the member.
create or replace function notify_hold_change() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    perform pg_notify('booking_service_busy', 'holds:' || old.member_id);
  end if;
  if tg_op = 'INSERT' or (tg_op = 'UPDATE' and new.member_id <> old.member_id) then
    perform pg_notify('booking_service_busy', 'holds:' || new.member_id);
  end if;
  return null;
end $$;

create or replace trigger booking_members_notify
  after insert or delete or update of active, during, member_id, mode on booking_members
  for each row execute function notify_hold_change();
