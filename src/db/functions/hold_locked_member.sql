-- hold_locked_member: with the member's row lock held, holds it within its per-day cap.
-- Caller: hold_members (so create_booking, and holdMembers in src/db/queries/booking-members.ts).
-- Rule: the booking's local day was computed by the service in the member's time zone; if the
-- zone changed since, that day may be wrong, so this is a serialization failure (40001) and
-- the caller retries with fresh data (withRetry, src/domain/bookings/pg-errors.ts).
create or replace function hold_locked_member(booking text, hold_mode text, starts timestamptz, blocked tstzrange, m members,
                                              zone text, day_from timestamptz, day_to timestamptz)
  returns boolean
  language plpgsql as $$
begin
  if m.timezone is distinct from zone then
    raise sqlstate '40001' using message = 'a candidate''s time zone changed; retry';
  end if;
  return insert_hold_within_cap(booking, m.id, hold_mode, starts, blocked, day_from, day_to, m.max_bookings_per_day);
end $$;
