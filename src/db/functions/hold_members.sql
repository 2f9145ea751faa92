-- hold_members: takes the members of a new booking: for COLLECTIVE every candidate, else the
-- first candidate, in routing order, that can take it.
-- Caller: create_booking (skip_busy true) and holdMembers in src/db/queries/booking-members.ts
-- (reschedule, src/domain/bookings/reschedule.ts; skip_busy false).
-- Rule: a request is never refused while some candidate could take it, and a candidate's per-day
-- count is exact under concurrency. Returns the members held; an empty array means the booking
-- cannot be placed and the caller must roll back (a collective attempt may have held some).
--
-- A candidate is locked (members row, NO KEY UPDATE) before its per-day count is taken.
-- COLLECTIVE locks its hosts in id order, so two collective bookings over the same hosts cannot
-- deadlock, and keeps them (any refusal ends the attempt). The others roll a refused candidate
-- back to before its lock (an exception block), so they hold at most one candidate's lock at a
-- time. skip_busy (create): concurrent creates compute the same routing order, so a first pass
-- takes, each time, the first candidate whose lock nobody holds (a locked one is being booked
-- right now); a second pass then waits, in order, for each candidate the first could not lock.
--
-- zones[i], day_from[i] and day_to[i]: candidate i's time zone and the local day of the
-- booking in it, as availability counts days (computed by the service).
create or replace function hold_members(booking text, hold_mode text, starts timestamptz, blocked tstzrange, candidates uuid[],
                                        zones text[], day_from timestamptz[], day_to timestamptz[], collective boolean,
                                        skip_busy boolean)
  returns uuid[]
  language plpgsql as $$
declare
  m members;
  i integer;
  c uuid;
  untried uuid[] := candidates;
begin
  if collective then
    foreach c in array array(select x from unnest(candidates) as x order by x) loop
      select * into m from members where id = c and is_active for no key update;
      i := array_position(candidates, c);
      if not found then
        return '{}';
      end if;
      if not hold_locked_member(booking, hold_mode, starts, blocked, m, zones[i], day_from[i], day_to[i]) then
        return '{}';
      end if;
    end loop;
    return candidates;
  end if;
  if skip_busy then
    loop
      begin
        select * into m from members
         where id = any(untried) and is_active
         order by array_position(untried, id) limit 1
           for no key update skip locked;
        exit when not found;
        i := array_position(candidates, m.id);
        if hold_locked_member(booking, hold_mode, starts, blocked, m, zones[i], day_from[i], day_to[i]) then
          return array[m.id];
        end if;
        raise sqlstate 'UB000';
      exception when sqlstate 'UB000' then
        untried := array_remove(untried, m.id);
      end;
    end loop;
  end if;
  foreach c in array untried loop
    begin
      select * into m from members where id = c and is_active for no key update;
      -- an inactive member: nothing was locked
      continue when not found;
      i := array_position(candidates, c);
      if hold_locked_member(booking, hold_mode, starts, blocked, m, zones[i], day_from[i], day_to[i]) then
        return array[c];
      end if;
      raise sqlstate 'UB000';
    exception when sqlstate 'UB000' then
      null;
    end;
  end loop;
  return '{}';
end $$;
