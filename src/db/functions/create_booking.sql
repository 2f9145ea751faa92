-- create_booking: POST /bookings' write, as one statement (so one implicit transaction and one
-- round trip): the booking in DRAFT, its holds, its BOOKING_CREATED event and its jobs.
-- Caller: createDraft in src/db/queries/bookings.ts (createBooking, src/domain/bookings/create.ts).
-- Rule: a booking exists only with its members held (hold_members: no member double-booked, none
-- over its per-day cap), its event recorded (record_events) and its jobs enqueued, or not at all.
-- Raises SQLSTATE UB409 when no candidate can take it (nothing is written), UB410 when its event
-- type was deleted or disabled since the caller read it, 23505 for a taken external_id, 40001 as
-- hold_members does, 40P01 on a deadlock.
--
-- `booking` is the new row as JSON (jsonb_populate_record), its `metadata` a JSON string holding
-- the metadata's text, stored as written (decisions.md §8). `payload` is a JSON string holding the
-- event's payload text, with the booking as the API shows it, whose created_at and updated_at,
-- assigned by this insert, are filled in here where the strings "\u0000created_at\u0000" and
-- "\u0000updated_at\u0000" stand (the event's timestamp is the latter; no client text can hold
-- them, a NUL being refused at the edge): every event of a booking is stamped with the
-- database's clock, as its later changes are (src/db/queries/bookings.ts). The release before
-- migration 086 sends the metadata and the payload as objects, whose stamps are set by path:
-- both forms are taken, so both releases create bookings during a rolling deploy. The jobs are
-- the caller's, as enqueue_jobs takes them: `jobs`
-- always (the routing job), `jobs_if_subscribed` only when an active subscription wants the
-- event (its webhook fan-out), all in one add_jobs call.
create or replace function create_booking(booking jsonb, candidates uuid[], zones text[], day_from timestamptz[],
                                          day_to timestamptz[], collective boolean, blocked tstzrange, event_id text,
                                          payload jsonb, broadcast text[], jobs jsonb, jobs_if_subscribed jsonb,
                                          out created bookings, out held uuid[])
  language plpgsql as $$
declare
  iso constant text := 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';
  subscribed boolean;
begin
  insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, custom_fields, metadata,
                        external_id, assigned_to_id, host_ids, rescheduled_from)
  select b.id, b.organization_id, b.mode, b.event_type_id, b.status, b.start_time, b.end_time, b.attendee, b.custom_fields,
         case jsonb_typeof(booking->'metadata') when 'string' then (booking->>'metadata')::json else (booking->'metadata')::json end,
         b.external_id, b.assigned_to_id, b.host_ids, b.rescheduled_from
    from jsonb_populate_record(null::bookings, booking - 'metadata') b
  returning * into created;
  -- The insert's foreign key check holds the event type's row (key share). A DELETE or a
  -- disabling PATCH that locked it first has committed by now, and this read sees it: the create
  -- is refused, as one made after it would be. One that locks it later waits for this create and
  -- then counts its booking (its 422, its warning).
  if not exists (select 1 from event_types t where t.id = created.event_type_id and t.is_active and t.deleted_at is null) then
    raise sqlstate 'UB410' using message = 'the event type is no longer bookable';
  end if;
  held := hold_members(created.id, created.mode, created.start_time, blocked, candidates, zones, day_from, day_to, collective, true);
  if coalesce(cardinality(held), 0) = 0 then
    raise sqlstate 'UB409' using message = 'the slot is no longer available';
  end if;
  select r.subscribed into subscribed
    from record_events(array[event_id], array[created.organization_id], array[created.mode], array[created.id], array['BOOKING_CREATED'],
                       array[case jsonb_typeof(payload)
                               when 'string' then
                                 to_jsonb(replace(replace(payload #>> '{}',
                                                          '"\u0000created_at\u0000"', to_json(to_char(created.created_at at time zone 'UTC', iso))::text),
                                                  '"\u0000updated_at\u0000"', to_json(to_char(created.updated_at at time zone 'UTC', iso))::text))
                               else jsonb_set(jsonb_set(jsonb_set(payload, '{data,created_at}', to_jsonb(to_char(created.created_at at time zone 'UTC', iso))),
                                                        '{data,updated_at}', to_jsonb(to_char(created.updated_at at time zone 'UTC', iso))),
                                              '{timestamp}', to_jsonb(to_char(created.updated_at at time zone 'UTC', iso)))
                             end],
                       broadcast) r;
  if subscribed then
    perform enqueue_jobs(jobs || jobs_if_subscribed);
  else
    perform enqueue_jobs(jobs);
  end if;
end $$;
