/**
 * Bulk data for the scale bench, written by SQL (generate_series inside PostgreSQL, nothing
 * through the API): 100 organizations, 10,000 members, 1,000 event types, then bookings in steps
 * with their holds, events, webhook messages and deliveries, and emails in proportion.
 *
 * Where the bookings go (booking number g, 1-based; each step adds the numbers after the last):
 *   - every 10th to the bookings bench's organization (org_bench, test mode, its 20 hosts): one
 *     busy customer holding a tenth of everything, so its list is 1,000 pages deep at 1 M;
 *   - every 50th (offset 5) to the availability bench's 20 hosts (org_northwind, test mode);
 *   - the rest to the 9,960 generated members of the 98 generated organizations (live mode).
 * A member's n-th booking gets hour slot (n × 7919 + member × 131) mod 17,520 of the two years:
 * distinct for each of a member's first 17,520 bookings, so holds never overlap (the exclusion
 * constraint holds by construction) whatever the step sizes, and spread over the two years.
 * The two years are 640 days back and 90 days ahead, skipping GAP_DAYS from today: the window the
 * bench's creates and availability requests use stays as the other benches have it, so each size
 * measures the same request against bigger tables and longer histories.
 *
 * Shares (by a hash of g): past bookings 80 % COMPLETED, 12 % CANCELLED, 5 % RESCHEDULED (to the
 * next booking number, which names it in rescheduled_from), 3 % NO_SHOW; future ones 84 %
 * SCHEDULED, 8 % CANCELLED, 4 % RESCHEDULED, 4 % PENDING_CONFIRMATION. Holds are active for
 * SCHEDULED and PENDING_CONFIRMATION only, as the service leaves them.
 * Per booking: a BOOKING_CREATED event and one for its end (completed, cancelled, rescheduled,
 * no-show); two emails (attendee and host) when scheduled and two more when cancelled or
 * rescheduled; 60 % of the generated organizations subscribe one webhook to every event, with one
 * delivery per message and a failed first attempt for one in twenty.
 */
import type { Pool } from '../src/db/pool.ts';

export const ORGANIZATIONS = 100;
export const MEMBERS = 10_000;
export const EVENT_TYPES = 1_000;
/** Days from today (UTC) that generated bookings leave free for the bench's own requests. */
export const GAP_DAYS = 80;

const SLOTS = 17_520; // hours in two years

/** Bench-only bookkeeping in the bench database: which member booking number g lands on. */
const SCALE_MEMBERS = `
  create table scale_members (idx integer primary key, member_id uuid not null, organization_id text not null,
                              event_type_id text not null, mode text not null, buffer_after integer not null)`;

/** Organizations, teams, members and event types up to the totals above, beside what the seed loaded. */
export async function generateTenants(pool: Pool): Promise<void> {
  const have = (
    await pool.query(`select (select count(*) from organizations)::int as orgs, (select count(*) from members)::int as members,
                                         (select count(*) from event_types)::int as types`)
  ).rows[0];
  const orgs = ORGANIZATIONS - have.orgs;
  const members = MEMBERS - have.members;
  const types = EVENT_TYPES - have.types;
  await pool.query(
    `insert into organizations (id, name) select 'org_s' || lpad(n::text, 3, '0'), 'Scale ' || n from generate_series(1, $1) n`,
    [orgs],
  );
  await pool.query(
    `insert into teams (id, organization_id, name)
     select 'team_s' || lpad(n::text, 3, '0'), 'org_s' || lpad(n::text, 3, '0'), 'Team ' || n from generate_series(1, $1) n`,
    [orgs],
  );
  // members: round-robin over the generated organizations, five zones, weekdays 9 to 5
  await pool.query(
    `insert into members (id, organization_id, team_id, name, email, timezone, max_bookings_per_day, working_hours)
     select ('c0000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, 'org_s' || lpad((1 + n % $2)::text, 3, '0'),
            'team_s' || lpad((1 + n % $2)::text, 3, '0'), 'Member ' || n, 'member' || n || '@scale.example',
            (array['Europe/London', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Sydney'])[1 + n % 5], 12,
            '[{"days": ["MON", "TUE", "WED", "THU", "FRI"], "start": "09:00", "end": "17:00"}]'
       from generate_series(0, $1 - 1) n`,
    [members, orgs],
  );
  await pool.query(
    `insert into event_types (id, organization_id, team_id, name, slug, duration, slot_interval, buffer_after, scheduling_type, workload)
     select 'et_s' || lpad(n::text, 4, '0'), 'org_s' || lpad((1 + n % $2)::text, 3, '0'), 'team_s' || lpad((1 + n % $2)::text, 3, '0'),
            'Type ' || n, 'type-' || n, 30, 15, 0, (array['ROUND_ROBIN', 'ROUND_ROBIN', 'COLLECTIVE', 'SOLO'])[1 + n % 4],
            '{"prep": 0, "meeting": 30, "implementation": 0, "admin": 0}'
       from generate_series(0, $1 - 1) n`,
    [types, orgs],
  );
  // one webhook in 60 % of the generated organizations (live mode); its secret is never used
  await pool.query(
    `insert into webhooks (id, organization_id, mode, url, events, secret_encrypted)
     select 'wh_s' || lpad(n::text, 3, '0'), 'org_s' || lpad(n::text, 3, '0'), 'live', 'https://hooks.scale.example/' || n,
            array['BOOKING_CREATED', 'BOOKING_UPDATED', 'BOOKING_CANCELLED', 'BOOKING_RESCHEDULED', 'BOOKING_COMPLETED',
                  'BOOKING_NO_SHOW', 'ASSIGNMENT_CHANGED'], 'unused'
       from generate_series(1, $1) n where n % 5 < 3`,
    [orgs],
  );
  await pool.query(SCALE_MEMBERS);
  await pool.query(
    `insert into scale_members (idx, member_id, organization_id, event_type_id, mode, buffer_after)
     select row_number() over (order by m.organization_id <> 'org_bench', m.id) - 1, m.id, m.organization_id,
            case when m.organization_id = 'org_bench' then 'et_bench' else 'et_bench_rr' end, 'test',
            case when m.organization_id = 'org_bench' then 0 else 10 end
       from members m where m.team_id in ('team_bench', 'team_bench_rr')`,
  );
  await pool.query(
    `insert into scale_members (idx, member_id, organization_id, event_type_id, mode, buffer_after)
     select 40 + row_number() over (order by m.id) - 1, m.id, m.organization_id,
            (select min(et.id) from event_types et where et.organization_id = m.organization_id), 'live', 0
       from members m where m.organization_id like 'org\\_s%'`,
  );
}

/** The bookings after number `from` up to `to`, with everything that comes with them. */
export async function generateBookings(pool: Pool, from: number, to: number): Promise<void> {
  const client = await pool.connect();
  try {
    // Triggers off for the load (foreign keys and the round-robin count among them): the rows are
    // consistent by construction, and the counts and busy days are rebuilt from the holds below.
    await client.query(`set session_replication_role = replica`);
    await client.query(`set synchronous_commit = off`);
    await client.query(`set work_mem = '256MB'`);
    const generated = (await client.query(`select count(*)::int as n from scale_members where idx >= 40`)).rows[0].n as number;
    await client.query('begin');
    // booking number g -> member index (busy groups first), that member's booking ordinal, hash
    await client.query(`
      create temporary table scale_step on commit drop as
      with placed as (
        select g, (g * 2654435761) % 4294967296 as h,
               case when g % 10 = 0 then (g / 10) % 20
                    when g % 50 = 5 then 20 + (g / 50) % 20
                    else 40 + g % ${generated} end as idx,
               case when g % 10 = 0 then g / 200
                    when g % 50 = 5 then g / 1000
                    else g / ${generated} end as nth
          from generate_series(${from}::bigint + 1, ${to}::bigint) g
      ), timed as (
        select p.*, date_trunc('hour', now()) - interval '640 days' + ((p.nth * 7919 + p.idx * 131) % ${SLOTS}) * interval '1 hour' as t
          from placed p
      )
      select t.g, t.h, t.idx, sm.member_id, sm.organization_id, sm.event_type_id, sm.mode, sm.buffer_after,
             case when t.t >= date_trunc('day', now()) then t.t + interval '${GAP_DAYS} days' else t.t end as start_time
        from timed t join scale_members sm on sm.idx = t.idx`);
    await client.query(`
      alter table scale_step add column status text;
      update scale_step set status = case
        when start_time < now() then case when h % 100 < 12 then 'CANCELLED' when h % 100 < 17 then 'RESCHEDULED'
                                          when h % 100 < 20 then 'NO_SHOW' else 'COMPLETED' end
        else case when h % 100 < 8 then 'CANCELLED' when h % 100 < 12 then 'RESCHEDULED'
                  when h % 100 < 16 then 'PENDING_CONFIRMATION' else 'SCHEDULED' end end;
      -- the step's last booking has no next one to be rescheduled to
      update scale_step set status = 'CANCELLED' where g = ${to} and status = 'RESCHEDULED';
      -- booked 1 to 30 days before its start, and never after now: a future booking's generated
      -- creation was otherwise often in the future, newer than the creates the bench makes, so
      -- the list's page 1 showed other rows at each size
      alter table scale_step add column created timestamptz;
      update scale_step set created = least(start_time - (1 + h % 30) * interval '1 day' - (h % 1440) * interval '1 minute',
                                            now() - interval '1 hour' - (h % 1440) * interval '1 minute');
      analyze scale_step;`);
    const id = (expr: string) => `'bkg_s' || lpad((${expr})::text, 8, '0')`;
    await client.query(`
      insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, metadata, assigned_to_id,
                            host_ids, cancellation_reason, cancelled_at, rescheduled_from, rescheduled_to, version, created_at, updated_at)
      select ${id('s.g')}, s.organization_id, s.mode, s.event_type_id, s.status, s.start_time, s.start_time + interval '30 minutes',
             jsonb_build_object('name', 'Attendee ' || s.g, 'email', 'attendee' || s.g || '@customer.example', 'timezone', 'Europe/Paris'),
             case when s.h % 3 = 0 then jsonb_build_object('crm_id', 'crm_' || s.g, 'source', 'widget') else '{}' end,
             s.member_id, array[s.member_id],
             case when s.status = 'CANCELLED' and s.h % 2 = 0 then 'Schedule conflict' end,
             case when s.status in ('CANCELLED', 'RESCHEDULED') then s.start_time - interval '2 days' end,
             case when p.status = 'RESCHEDULED' then ${id('s.g - 1')} end,
             case when s.status = 'RESCHEDULED' then ${id('s.g + 1')} end,
             case when s.status in ('SCHEDULED', 'PENDING_CONFIRMATION') then 2 else 3 end,
             s.created, greatest(s.created, least(s.start_time - (s.h % 20) * interval '1 hour', now()))
        from scale_step s left join scale_step p on p.g = s.g - 1`);
    await client.query(`
      insert into booking_members (booking_id, member_id, mode, start_time, during, active, created_at)
      select ${id('g')}, member_id, mode, start_time,
             tstzrange(start_time, start_time + interval '30 minutes' + buffer_after * interval '1 minute', '[)'),
             status in ('SCHEDULED', 'PENDING_CONFIRMATION'), created
        from scale_step`);
    // events: created, and how it ended; the payload as the service writes it (the booking as GET shows it)
    await client.query(`
      insert into booking_events (id, organization_id, mode, booking_id, type, payload, created_at)
      select 'evt_s' || lpad(s.g::text, 8, '0') || e.n, s.organization_id, s.mode, ${id('s.g')}, e.type,
             jsonb_build_object('event', e.type, 'timestamp', least(b.created_at + e.n * interval '1 day', now()), 'data', jsonb_build_object(
               'object', 'booking', 'id', b.id, 'event_type_id', b.event_type_id, 'status', b.status, 'start_time', b.start_time,
               'end_time', b.end_time, 'attendee', b.attendee, 'custom_fields', b.custom_fields, 'metadata', b.metadata,
               'assigned_to_id', b.assigned_to_id, 'host_ids', b.host_ids, 'cancellation_reason', b.cancellation_reason,
               'rescheduled_from', b.rescheduled_from, 'rescheduled_to', b.rescheduled_to, 'created_at', b.created_at,
               'updated_at', b.updated_at)),
             least(b.created_at + e.n * interval '1 day', now())
        from scale_step s join bookings b on b.id = ${id('s.g')}
        cross join lateral (values (0, 'BOOKING_CREATED'),
                                   (1, case s.status when 'COMPLETED' then 'BOOKING_COMPLETED' when 'CANCELLED' then 'BOOKING_CANCELLED'
                                                     when 'RESCHEDULED' then 'BOOKING_RESCHEDULED' when 'NO_SHOW' then 'BOOKING_NO_SHOW' end)) e(n, type)
       where e.type is not null`);
    await client.query(
      `
      insert into webhook_messages (id, webhook_id, event_id, event_type, body, status, next_position, created_at)
      select 'msg_' || substr(e.id, 5), w.id, e.id, e.type, e.payload::text, 'succeeded', 2, e.created_at
        from booking_events e join webhooks w on w.organization_id = e.organization_id and w.mode = e.mode
       where e.id >= 'evt_s' || lpad(($1 + 1)::text, 8, '0') and e.id < 'evt_s' || lpad(($2 + 1)::text, 8, '0')`,
      [from, to],
    );
    await client.query(
      `
      insert into webhook_deliveries (id, message_id, webhook_id, event_id, event_type, attempt, status, response_status, duration_ms, error,
                                      created_at, next_attempt_at)
      select 'dlv_' || substr(m.id, 5) || a.n, m.id, m.webhook_id, m.event_id, m.event_type, a.n,
             case when a.n = 1 and a.retried then 'failed' else 'succeeded' end,
             case when a.n = 1 and a.retried then 503 else 200 end, 40 + length(m.id) % 200,
             case when a.n = 1 and a.retried then 'HTTP 503' end,
             m.created_at + (a.n - 1) * interval '1 second',
             case when a.n = 1 and a.retried then m.created_at + interval '1 second' end
        from webhook_messages m
        cross join lateral (select hashtext(m.id) % 20 = 0 as retried) r
        cross join lateral (select n, r.retried from generate_series(1, case when r.retried then 2 else 1 end) n) a
       where m.id >= 'msg_s' || lpad(($1 + 1)::text, 8, '0') and m.id < 'msg_s' || lpad(($2 + 1)::text, 8, '0')`,
      [from, to],
    );
    // emails: attendee and host when scheduled, again when cancelled or rescheduled; text and an invitation
    await client.query(`
      insert into email_outbox (id, organization_id, mode, booking_id, kind, recipient_role, to_address, to_name, subject, text_body,
                                ics, ics_method, ics_uid, ics_sequence, status, attempts, created_at, sent_at)
      select 'eml_s' || lpad(s.g::text, 8, '0') || k.n || r.role, s.organization_id, s.mode, ${id('s.g')}, k.kind, r.role,
             case r.role when 'attendee' then 'attendee' || s.g || '@customer.example' else 'member' || s.idx || '@scale.example' end,
             case r.role when 'attendee' then 'Attendee ' || s.g else 'Host ' || s.idx end,
             initcap(k.kind) || ': Meeting on ' || to_char(s.start_time, 'Dy DD Mon YYYY HH24:MI'),
             'Hello,' || E'\\n\\n' || 'your meeting "Meeting ' || s.g || '" is ' || k.kind || ' for ' ||
               to_char(s.start_time, 'Day DD Month YYYY, HH24:MI') || ' (Europe/Paris), 30 minutes.' || E'\\n\\n' ||
               'Reschedule or cancel: https://book.scale.example/b/' || s.g || E'\\n' || 'Booking reference: bkg_s' || s.g ||
               E'\\n\\n' || 'Sent by Booking Service on behalf of Scale ' || s.organization_id || '.',
             'BEGIN:VCALENDAR' || E'\\r\\n' || 'VERSION:2.0' || E'\\r\\n' || 'PRODID:-//booking-service//EN' || E'\\r\\n' ||
               'METHOD:' || k.method || E'\\r\\n' || 'BEGIN:VEVENT' || E'\\r\\n' || 'UID:bkg_s' || s.g || '@booking-service' || E'\\r\\n' ||
               'SEQUENCE:' || k.n || E'\\r\\n' || 'DTSTAMP:' || to_char(s.start_time, 'YYYYMMDD"T"HH24MISS"Z"') || E'\\r\\n' ||
               'DTSTART:' || to_char(s.start_time, 'YYYYMMDD"T"HH24MISS"Z"') || E'\\r\\n' ||
               'DTEND:' || to_char(s.start_time + interval '30 minutes', 'YYYYMMDD"T"HH24MISS"Z"') || E'\\r\\n' ||
               'SUMMARY:Meeting ' || s.g || E'\\r\\n' || 'ORGANIZER;CN=Host:mailto:member' || s.idx || '@scale.example' || E'\\r\\n' ||
               'ATTENDEE;CN=Attendee;RSVP=TRUE:mailto:attendee' || s.g || '@customer.example' || E'\\r\\n' ||
               'STATUS:' || case k.method when 'CANCEL' then 'CANCELLED' else 'CONFIRMED' end || E'\\r\\n' ||
               'END:VEVENT' || E'\\r\\n' || 'END:VCALENDAR' || E'\\r\\n',
             k.method, 'bkg_s' || s.g || '@booking-service', k.n, 'sent', 1,
             least(s.created + k.n * interval '1 day', now()),
             least(s.created + k.n * interval '1 day', now()) + interval '2 seconds'
        from scale_step s
        cross join lateral (values (0, 'scheduled', 'REQUEST'),
                                   (1, case s.status when 'CANCELLED' then 'cancelled' when 'RESCHEDULED' then 'rescheduled' end,
                                       case s.status when 'CANCELLED' then 'CANCEL' else 'REQUEST' end)) k(n, kind, method)
        cross join (values ('attendee'), ('host')) r(role)
       where k.kind is not null`);
    // the round-robin counts, as the hold trigger (off above) would have kept them
    await client.query(`delete from member_booking_counts`);
    await client.query(`
      insert into member_booking_counts (member_id, mode, period_start, booked)
      select bm.member_id, bm.mode, date_trunc('month', bm.start_time, 'UTC'),
             count(*) filter (where bm.active or b.status <> 'CANCELLED')
        from booking_members bm join bookings b on b.id = bm.booking_id
       group by 1, 2, 3`);
    await client.query(`delete from member_last_booked`);
    await client.query(`
      insert into member_last_booked (member_id, mode, last_booked_at)
      select member_id, mode, max(created_at) from booking_members group by 1, 2`);
    // and the busy days availability reads, as the busy days' trigger would have kept them
    await client.query('select member_busy_days_rebuild()');
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    await client.query(`reset session_replication_role`).catch(() => {});
    client.release();
  }
}

/**
 * Statistics (autovacuum is off on the machines we run on, so nothing else gathers them) and the
 * visibility map and hint bits of the tables the measured reads scan, as autovacuum would have
 * set them by then; then a checkpoint, so the load's dirty pages are written before, not during,
 * the measurement.
 *
 * The generated calendar connections are marked as tried just now: never tried, every one of
 * them (about 5,000) was overdue, and the sweep of each fresh `serve` (schedule-calendar-syncs)
 * queued a sync of all at once (10,036 add_job calls in one 10 k run, 4 s of PostgreSQL), which
 * then ran beside whichever measurement was under way. A deployment syncs them spread over the
 * interval; their busy blocks, which the measured reads consult, stay as generated.
 */
export async function settle(pool: Pool): Promise<void> {
  await markCalendarsTried(pool);
  await pool.query('vacuum (analyze) bookings, booking_members, member_booking_counts, member_last_booked, member_busy_days');
  await pool.query('analyze');
  await pool.query('checkpoint');
}

/** Marks every generated calendar connection as tried just now (settle says why; the retention step calls it again). */
export async function markCalendarsTried(pool: Pool): Promise<void> {
  if ((await pool.query(`select to_regclass('public.calendar_connections') as t`)).rows[0].t) {
    await pool.query('update calendar_connections set last_attempt_at = now()');
  }
}

/** The largest tables (with their indexes and TOAST) and the largest indexes, in bytes. */
export async function largest(
  pool: Pool,
  n = 8,
): Promise<{ tables: { name: string; rows: number; bytes: number }[]; indexes: { name: string; bytes: number }[] }> {
  const tables = (
    await pool.query(
      `select c.relname as name, c.reltuples::bigint as rows, pg_total_relation_size(c.oid) as bytes
       from pg_class c join pg_namespace s on s.oid = c.relnamespace
      where c.relkind = 'r' and s.nspname = 'public' and c.relname not like 'scale\\_%' order by 3 desc limit $1`,
      [n],
    )
  ).rows;
  const indexes = (
    await pool.query(
      `select c.relname as name, pg_relation_size(c.oid) as bytes
       from pg_class c join pg_namespace s on s.oid = c.relnamespace
      where c.relkind = 'i' and s.nspname = 'public' and c.relname not like 'scale\\_%' order by 2 desc limit $1`,
      [n],
    )
  ).rows;
  return {
    tables: tables.map((r) => ({ name: r.name as string, rows: Number(r.rows), bytes: Number(r.bytes) })),
    indexes: indexes.map((r) => ({ name: r.name as string, bytes: Number(r.bytes) })),
  };
}

/**
 * Connected calendars with external busy blocks (calendar sync, docs/calendars.md), when the
 * schema has them: every bench host and half of the generated members hold one CALDAV calendar
 * whose last sync stored 2 one-hour blocks per weekday over the sync window (yesterday to 180
 * days ahead), and the availability hosts 5 per day over the measured 14 days, as the
 * availability bench gives them. Scales with members, not bookings: written once. Returns the
 * number of blocks, or undefined where the schema has no calendar sync.
 */
export async function generateCalendars(pool: Pool, firstDay: Date): Promise<number | undefined> {
  if (!(await pool.query(`select to_regclass('public.calendar_busy') as t`)).rows[0].t) return undefined;
  await pool.query(`
    create temporary table scale_calendar_members as
    select m.id as member_id, m.organization_id, m.team_id, 'cal_s' || row_number() over (order by m.id) as calendar_id
      from members m
     where m.team_id in ('team_bench', 'team_bench_rr') or (m.organization_id like 'org\\_s%' and get_byte(uuid_send(m.id), 15) % 2 = 0)`);
  await pool.query(`
    insert into calendars (id, organization_id, user_id, team_id, provider, calendar_id, calendar_name, sync_status, last_sync_at)
    select calendar_id, organization_id, member_id, team_id, 'CALDAV', calendar_id, 'Work', 'SUCCESS', now() from scale_calendar_members`);
  await pool.query(`
    insert into calendar_connections (calendar_id, url, username, password_encrypted, password_digest, window_start, window_end)
    select calendar_id, 'https://dav.scale.example/' || calendar_id || '/', 'user', 'unused', 'unused',
           date_trunc('day', now(), 'UTC') - interval '1 day', date_trunc('day', now(), 'UTC') + interval '180 days'
      from scale_calendar_members`);
  await pool.query(`
    insert into calendar_resources (calendar_id, href, etag, data, events, skipped)
    select calendar_id, 'work.ics', '"1"', '', 0, 0 from scale_calendar_members`);
  // generated members: 2 blocks per weekday, at 10:00 and 15:30 UTC
  await pool.query(`
    insert into calendar_busy (calendar_id, href, member_id, start_time, end_time)
    select c.calendar_id, 'work.ics', c.member_id, d + b.at, d + b.at + interval '1 hour'
      from scale_calendar_members c
     cross join generate_series(date_trunc('day', now(), 'UTC') - interval '1 day', date_trunc('day', now(), 'UTC') + interval '179 days',
                                interval '1 day') d
     cross join (values (interval '10 hours'), (interval '15 hours 30 minutes')) b(at)
     where c.team_id <> 'team_bench_rr' and extract(isodow from d) < 6`);
  // the availability hosts: 5 per day in the measured window, staggered per host
  await pool.query(
    `
    insert into calendar_busy (calendar_id, href, member_id, start_time, end_time)
    select c.calendar_id, 'work.ics', c.member_id, t, t + interval '1 hour'
      from (select c.*, row_number() over (order by c.member_id) - 1 as h from scale_calendar_members c where c.team_id = 'team_bench_rr') c
     cross join generate_series(0, 13) d cross join generate_series(0, 4) k
     cross join lateral (select $1::timestamptz + d * interval '1 day' + (60 + k * 156 + c.h * 7) * interval '1 minute' as t) x`,
    [firstDay],
  );
  await pool.query(`update calendar_resources r set events = (select count(*) from calendar_busy b where b.calendar_id = r.calendar_id)
                     where r.calendar_id like 'cal\\_s%'`);
  return Number((await pool.query(`select count(*) as n from calendar_busy`)).rows[0].n);
}
