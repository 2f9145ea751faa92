-- A booking create as one statement. Each round trip costs the service and PostgreSQL about
-- 0.13 ms of CPU under load, and the create's transaction took nine (BEGIN, insert, savepoint,
-- lock, hold, subscription lock, event, job, COMMIT). The hold rules and the event outbox
-- move here so that create, reschedule and every other change share one implementation.
-- plpgsql resolves names at the first call, so the graphile_worker schema (installed after
-- these migrations) may be used.

-- The lock that orders subscription changes against booking events of one organization and
-- mode (src/db/queries/webhooks.ts): exclusive to add or activate a subscription, shared to
-- record an event. Keys in one fixed order ("C" collation), so that batches taking several
-- shared locks queue behind an exclusive one alike.
create function lock_subscriptions(orgs text[], modes text[], exclusive boolean) returns void
  language plpgsql as $$
declare
  k text;
begin
  for k in select s.k from (select distinct 'webhooks:' || o || ':' || m as k from unnest(orgs, modes) as u(o, m)) s
            order by s.k collate "C" loop
    if exclusive then
      perform pg_advisory_xact_lock(hashtext(k));
    else
      perform pg_advisory_xact_lock_shared(hashtext(k));
    end if;
  end loop;
end $$;

-- Writes booking events to the outbox and answers, per event, whether an active subscription
-- of its organization and mode wants it (BOOKING_UPDATED, in `broadcast`, goes to every
-- active one): the caller enqueues the fan-out of those (src/domain/events/record.ts), with
-- the rest of its transaction's jobs. The shared subscription lock comes first, in its own
-- statement: the insert's later snapshot then sees every subscription committed before the
-- lock was granted, and one committed after waited for these events.
create function record_events(ids text[], orgs text[], modes text[], booking_ids text[], types text[], payloads jsonb[],
                              broadcast text[])
  returns table (event_id text, subscribed boolean)
  language plpgsql as $$
begin
  perform lock_subscriptions(orgs, modes, false);
  return query
    insert into booking_events as e (id, organization_id, mode, booking_id, type, payload)
    select * from unnest(ids, orgs, modes, booking_ids, types, payloads)
    returning e.id, exists (select 1 from webhooks w where w.organization_id = e.organization_id and w.mode = e.mode and w.is_active
                             and (e.type = any(broadcast) or e.type = any(w.events)));
end $$;

-- Inserts the hold unless the member already has `cap` active holds (this mode) starting in
-- [day_from, day_to), or an active hold overlapping it. The caller holds the member's row lock,
-- taken by an earlier statement, so this statement's snapshot sees every hold committed by the
-- lock's previous owner. Overlaps are the exclusion constraint's to refuse (ON CONFLICT DO
-- NOTHING arbitrates on it), so no path can double-book a member whatever it checked before.
create function insert_hold_within_cap(booking text, member uuid, hold_mode text, starts timestamptz, blocked tstzrange,
                                       day_from timestamptz, day_to timestamptz, cap integer)
  returns boolean
  language plpgsql as $$
begin
  -- plpgsql, not sql: PostgreSQL 15 plans a non-inlined SQL function's body at every call
  insert into booking_members (booking_id, member_id, mode, start_time, during)
  select booking, member, hold_mode, starts, blocked
   where (select count(*) from booking_members bm
           where bm.member_id = member and bm.mode = hold_mode and bm.active and bm.start_time >= day_from and bm.start_time < day_to) < cap
  on conflict do nothing;
  return found;
end $$;

-- With the member's row lock held: checks that its zone is still the one the service computed
-- the booking's local day in (else a serialization failure: the caller retries with fresh
-- data), then holds it within its per-day cap.
create function hold_locked_member(booking text, hold_mode text, starts timestamptz, blocked tstzrange, m members,
                                   zone text, day_from timestamptz, day_to timestamptz)
  returns boolean
  language plpgsql as $$
begin
  if m.timezone is distinct from zone then
    raise sqlstate '40001' using message = 'a candidate''s time zone changed; retry';
  end if;
  return insert_hold_within_cap(booking, m.id, hold_mode, starts, blocked, day_from, day_to, m.max_bookings_per_day);
end $$;

-- Takes the members of a new booking: for COLLECTIVE every candidate, else the first
-- candidate, in routing order, that can take it. Returns the members held; an empty array
-- means the booking cannot be placed and the caller must roll back (a collective attempt may
-- have held some).
--
-- A candidate is locked (members row, NO KEY UPDATE) before its per-day count is taken, so the
-- count is exact under concurrency. COLLECTIVE locks its hosts in id order, so two collective
-- bookings over the same hosts cannot deadlock, and keeps them (any refusal ends the attempt).
-- The others roll a refused candidate back to before its lock (an exception block), so they
-- hold at most one candidate's lock at a time. skip_busy (create): concurrent creates compute
-- the same routing order, so a first pass takes, each time, the first candidate whose lock
-- nobody holds (a locked one is being booked right now); a second pass then waits, in order,
-- for each candidate the first could not lock. A request is never refused while some
-- candidate could take it.
--
-- zones[i], day_from[i] and day_to[i]: candidate i's time zone and the local day of the
-- booking in it, as availability counts days (computed by the service).
create function hold_members(booking text, hold_mode text, starts timestamptz, blocked tstzrange, candidates uuid[],
                             zones text[], day_from timestamptz[], day_to timestamptz[], collective boolean, skip_busy boolean)
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

-- POST /bookings' write, as one statement (so one implicit transaction): the booking in DRAFT,
-- its holds, its BOOKING_CREATED event, and in one enqueue its routing job and the event's
-- fan-out job when a subscription wants it. `booking` is the new row as JSON
-- (jsonb_populate_record), `payload` the event's payload with the booking as the API shows it,
-- whose created_at and updated_at, assigned by this insert, are filled in here. Raises
-- SQLSTATE UB409 when no candidate can take it (nothing is written), 23505 for a taken
-- external_id, 40001 as hold_members does, 40P01 on a deadlock.
create function create_booking(booking jsonb, candidates uuid[], zones text[], day_from timestamptz[], day_to timestamptz[],
                               collective boolean, blocked tstzrange, event_id text, payload jsonb, broadcast text[],
                               dispatch_task text, dispatch_attempts integer,
                               route_task text, route_payload json, route_attempts integer, route_priority integer,
                               out created bookings, out held uuid[])
  language plpgsql as $$
declare
  iso constant text := 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';
  subscribed boolean;
begin
  insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, custom_fields, metadata,
                        external_id, assigned_to_id, host_ids, rescheduled_from)
  select b.id, b.organization_id, b.mode, b.event_type_id, b.status, b.start_time, b.end_time, b.attendee, b.custom_fields, b.metadata,
         b.external_id, b.assigned_to_id, b.host_ids, b.rescheduled_from
    from jsonb_populate_record(null::bookings, booking) b
  returning * into created;
  held := hold_members(created.id, created.mode, created.start_time, blocked, candidates, zones, day_from, day_to, collective, true);
  if coalesce(cardinality(held), 0) = 0 then
    raise sqlstate 'UB409' using message = 'the slot is no longer available';
  end if;
  select r.subscribed into subscribed
    from record_events(array[event_id], array[created.organization_id], array[created.mode], array[created.id], array['BOOKING_CREATED'],
                       array[jsonb_set(jsonb_set(payload, '{data,created_at}', to_jsonb(to_char(created.created_at at time zone 'UTC', iso))),
                                       '{data,updated_at}', to_jsonb(to_char(created.updated_at at time zone 'UTC', iso)))],
                       broadcast) r;
  if subscribed then
    perform enqueue_jobs(array[route_task, dispatch_task], array[route_payload, json_build_object('eventId', event_id)],
                         array[null::text, null], array[null::timestamptz, null], array[route_attempts, dispatch_attempts],
                         array[route_priority, 0]);
  else
    perform enqueue_jobs(array[route_task], array[route_payload], array[null::text], array[null::timestamptz], array[route_attempts],
                         array[route_priority]);
  end if;
end $$;

-- enqueue_jobs runs add_jobs on generic plans (migration 062), settled at a session's first
-- calls while the jobs table is small: its keyed-job UPDATE then scans the whole table at
-- every enqueue, dead rows included, and without autovacuum those only grow. Index access
-- keeps it a lookup (no job of ours has a key, so it finds nothing).
alter function enqueue_jobs(text[], json[], text[], timestamptz[], int[], int[]) set enable_seqscan = off;
