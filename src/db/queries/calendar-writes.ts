import type { Db, Tx } from '../pool.ts';
import { exec, one, rows, rowsReplanned } from '../pool.ts';
import { SYNCED_PROVIDERS } from './calendar-sync.ts';

/**
 * Of these bookings, the meetings (chain roots: the first booking of each one's reschedule chain,
 * the meeting's calendar UID) a calendar write-back job must look at: bookings, test or live, with
 * a host whose primary calendar is connected (CALDAV/APPLE), or a meeting already written
 * somewhere (to update or delete it). Everything else costs no job.
 *
 * Every change asks this, so it reads bookings by key only: each step back along the chain is a
 * key lookup whatever the plan (as bookingForEmail's chain), and the given booking's hosts
 * travel along the chain instead of being joined again at the end. As joins, plans made
 * without statistics (a new table, or autovacuum off) hash-joined a scan of all of bookings at
 * each change.
 */
export function meetingsToWrite(tx: Tx, bookingIds: readonly string[]): Promise<{ root: string }[]> {
  return rowsReplanned<{ root: string }>(
    tx,
    `with recursive chain (start_id, id, parent, depth, member_ids) as (
        select b.id, b.id, b.rescheduled_from, 0, array_remove(array[b.assigned_to_id], null) || b.host_ids
          from bookings b where b.id = any($1::text[])
        union all
        select c.start_id, c.parent, (select p.rescheduled_from from bookings p where p.id = c.parent), c.depth + 1, c.member_ids
          from chain c where c.parent is not null and c.depth < 10000
      ), roots as (select distinct on (start_id) id as root, member_ids from chain order by start_id, depth desc)
     select distinct r.root from roots r
      where exists (select 1 from calendar_event_writes w where w.root_booking_id = r.root)
         or exists (select 1 from calendars c join calendar_connections k on k.calendar_id = c.id
                     where c.user_id = any(r.member_ids) and c.is_primary and c.provider = any($2))`,
    [bookingIds, SYNCED_PROVIDERS],
  );
}

/**
 * Bookings whose meetings a calendar may be behind on after it waited for credentials
 * (NEEDS_REAUTH: its writes were skipped): the current booking, not yet ended, of every meeting
 * written to it, and, when it is its member's primary calendar, of every meeting the member
 * holds from now on. For enqueueCalendarWrites, which finds their meetings.
 */
export async function meetingsOfCalendar(tx: Tx, calendarId: string): Promise<string[]> {
  const found = await rows<{ id: string }>(
    tx,
    `with recursive chain (id, next, depth) as (
        select b.id, b.rescheduled_to, 0 from calendar_event_writes w join bookings b on b.id = w.root_booking_id
         where w.calendar_id = $1
        union all
        select n.id, n.rescheduled_to, c.depth + 1 from chain c join bookings n on n.id = c.next where c.depth < 10000
      )
     select c.id from chain c join bookings b on b.id = c.id where c.next is null and b.end_time > now()
     union
     select b.id from calendars cal join booking_members h on h.member_id = cal.user_id
       join bookings b on b.id = h.booking_id
      where cal.id = $1 and cal.is_primary and h.active and h.start_time > now() - interval '1 day'
        and b.end_time > now() and b.rescheduled_to is null`,
    [calendarId],
  );
  return found.map((r) => r.id);
}

export interface MeetingHost {
  id: string;
  name: string;
  email: string;
}

/** The booking a meeting shows now: the last of its reschedule chain, with what the event says. */
export interface MeetingState {
  id: string;
  mode: string;
  status: string;
  start_time: Date;
  end_time: Date;
  attendee: { name: string; email: string; timezone?: string; phone?: string };
  event_type_name: string | null;
  event_type_description: string | null;
  hosts: MeetingHost[];
}

export function meetingState(db: Db, rootId: string): Promise<MeetingState | undefined> {
  return one<MeetingState>(
    db,
    `with recursive chain (id, next, depth) as (
        select b.id, b.rescheduled_to, 0 from bookings b where b.id = $1
        union all
        -- a key lookup per step whatever the plan (meetingsToWrite says why)
        select c.next, (select n.rescheduled_to from bookings n where n.id = c.next), c.depth + 1
          from chain c where c.next is not null and c.depth < 10000
      ), last as (select id from chain order by depth desc limit 1)
     select b.id, b.mode, b.status, b.start_time, b.end_time, b.attendee, et.name as event_type_name,
            et.description as event_type_description,
            (select coalesce(json_agg(json_build_object('id', m.id, 'name', m.name, 'email', m.email) order by w.n), '[]')
               from (select distinct on (id) id, n from unnest(array_remove(array[b.assigned_to_id], null) || b.host_ids)
                       with ordinality as u(id, n) order by id, n) w
               join members m on m.id = w.id) as hosts
       from last join bookings b on b.id = last.id left join event_types et on et.id = b.event_type_id`,
    [rootId],
  );
}

export interface WriteTarget {
  calendar_id: string;
  user_id: string;
  url: string;
  username: string;
  password_encrypted: string;
  sync_status: string;
}

/** Each host's primary connected calendar (the oldest if several), NEEDS_REAUTH ones included (the caller skips them). */
export function primaryCalendars(db: Db, memberIds: readonly string[]): Promise<WriteTarget[]> {
  return rows<WriteTarget>(
    db,
    `select distinct on (c.user_id) c.id as calendar_id, c.user_id, k.url, k.username, k.password_encrypted, c.sync_status
       from calendars c join calendar_connections k on k.calendar_id = c.id
      where c.user_id = any($1::uuid[]) and c.is_primary and c.provider = any($2)
      order by c.user_id, c.created_at, c.id`,
    [memberIds, SYNCED_PROVIDERS],
  );
}

export interface WriteRow {
  root_booking_id: string;
  calendar_id: string;
  href: string;
  etag: string | null;
  sequence: number;
  url: string | null;
  username: string | null;
  password_encrypted: string | null;
  sync_status: string;
}

/** Where the meeting is written now, with each calendar's connection (null when it was dropped). */
export function writesOf(db: Db, rootId: string): Promise<WriteRow[]> {
  return rows<WriteRow>(
    db,
    `select w.*, k.url, k.username, k.password_encrypted, c.sync_status
       from calendar_event_writes w join calendars c on c.id = w.calendar_id
       left join calendar_connections k on k.calendar_id = w.calendar_id
      where w.root_booking_id = $1`,
    [rootId],
  );
}

export async function recordWrite(db: Db, w: { root: string; calendarId: string; href: string; etag: string | null; sequence: number }) {
  await exec(
    db,
    `insert into calendar_event_writes (root_booking_id, calendar_id, href, etag, sequence) values ($1, $2, $3, $4, $5)
     on conflict (root_booking_id, calendar_id) do update set href = excluded.href, etag = excluded.etag, sequence = excluded.sequence`,
    [w.root, w.calendarId, w.href, w.etag, w.sequence],
  );
  // a write that succeeds again ends a write-back failure shown on the calendar
  await exec(
    db,
    `with old as (select write_error from calendar_connections where calendar_id = $1 and write_error is not null),
          k as (update calendar_connections set write_error = null where calendar_id = $1 and write_error is not null returning calendar_id)
     update calendars set sync_status = case when last_sync_at is null then 'PENDING' else 'SUCCESS' end, sync_error = null
      where id in (select calendar_id from k) and sync_status = 'ERROR' and sync_error = (select write_error from old)`,
    [w.calendarId],
  );
}

/** A run of the meeting's write-back that left nothing failing: no calendar owes it a retry. */
export async function clearWriteFailures(db: Db, root: string): Promise<void> {
  await exec(db, 'delete from calendar_write_failures where root_booking_id = $1', [root]);
}

/**
 * The meetings whose write to this calendar failed for good and are not queued again yet, marked
 * queued: a successful sync (the server answers again) writes each once more.
 */
export async function claimFailedWrites(tx: Tx, calendarId: string): Promise<string[]> {
  const found = await rows<{ root_booking_id: string }>(
    tx,
    `update calendar_write_failures set retry_queued = true where calendar_id = $1 and not retry_queued returning root_booking_id`,
    [calendarId],
  );
  return found.map((r) => r.root_booking_id);
}

export async function forgetWrite(db: Db, root: string, calendarId: string): Promise<void> {
  await exec(db, 'delete from calendar_event_writes where root_booking_id = $1 and calendar_id = $2', [root, calendarId]);
}

/** A write-back that failed for good: the calendar shows ERROR with the reason until a write succeeds. */
export async function failWrite(db: Db, calendarId: string, root: string, reason: string): Promise<void> {
  await exec(db, 'update calendar_connections set write_error = $2 where calendar_id = $1', [calendarId, reason]);
  await exec(
    db,
    `insert into calendar_write_failures (calendar_id, root_booking_id) values ($1, $2)
     on conflict (calendar_id, root_booking_id) do update set retry_queued = false`,
    [calendarId, root],
  );
  await exec(db, `update calendars set sync_status = 'ERROR', sync_error = $2 where id = $1 and sync_status <> 'NEEDS_REAUTH'`, [
    calendarId,
    reason,
  ]);
}

/** The server refused the credentials on a write: the calendar waits for new ones. */
export async function needsReauth(db: Db, calendarId: string, reason: string): Promise<void> {
  await exec(db, `update calendars set sync_status = 'NEEDS_REAUTH', sync_error = $2 where id = $1`, [calendarId, reason]);
}
