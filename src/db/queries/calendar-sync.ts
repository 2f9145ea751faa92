import type { Db, Tx } from '../pool.ts';
import { exec, one, rows, rowsReplanned } from '../pool.ts';
import type { CalendarConnectionRow } from '../schema.ts';

/** Providers whose calendars the service reads and writes over CalDAV (decisions.md §7). */
export const SYNCED_PROVIDERS = ['CALDAV', 'APPLE'] as const;

export type ConnectionRow = CalendarConnectionRow;

/** A connected calendar as a sync needs it: the connection, whose calendar it is and in which zone. */
export interface ClaimedCalendar extends ConnectionRow {
  organization_id: string;
  user_id: string;
  provider: string;
  member_timezone: string;
}

export interface NewConnection {
  calendarId: string;
  url: string;
  username: string;
  passwordEncrypted: string;
  passwordDigest: string;
}

/**
 * Stores a calendar's connection. A new or changed connection (URL, user, password) puts the
 * calendar back to PENDING and makes its next sync read the whole collection again (no token,
 * no ctag, every event expanded again); an unchanged one is left alone unless `renew`
 * (credentials given again: NEEDS_REAUTH ends). What was read before stays, busy time included,
 * until that sync replaces it: the host's meetings go on counting while the new connection has
 * not been read, and if it cannot be (decisions §7: the last success's busy time stays in force).
 * Returns whether it changed (the caller then enqueues a sync).
 */
export async function upsertConnection(tx: Tx, c: NewConnection, renew = false): Promise<boolean> {
  const changed = await one<{ calendar_id: string }>(
    tx,
    `insert into calendar_connections (calendar_id, url, username, password_encrypted, password_digest)
     values ($1, $2, $3, $4, $5)
     on conflict (calendar_id) do update set url = excluded.url, username = excluded.username,
       password_encrypted = excluded.password_encrypted, password_digest = excluded.password_digest,
       sync_token = null, ctag = null, window_start = null, window_end = null, write_error = null,
       expanded_for = null, expanded_timezone = null
     where $6 or (calendar_connections.url, calendar_connections.username, calendar_connections.password_digest)
                 is distinct from (excluded.url, excluded.username, excluded.password_digest)
     returning calendar_id`,
    [c.calendarId, c.url, c.username, c.passwordEncrypted, c.passwordDigest, renew],
  );
  if (!changed) return false;
  await exec(tx, `update calendars set sync_status = 'PENDING', sync_error = null where id = $1`, [c.calendarId]);
  return true;
}

/** Whether the calendar waits for its connection to be given again (a 401/403 to a sync or a write). */
export async function needsReauth(db: Db, calendarId: string): Promise<boolean> {
  const row = await one<{ sync_status: string }>(db, 'select sync_status from calendars where id = $1', [calendarId]);
  return row?.sync_status === 'NEEDS_REAUTH';
}

/**
 * Calendars no longer connected (a seed file dropped their connection): the stored credentials
 * go, and with them what was read (resources, busy time) and the write-back failure; the
 * reason the last sync or write failed goes too, since nothing syncs any more (the status is the
 * file's again). Returns how many were connected, and their members (whose busy time changed).
 * A database not yet migrated to 072 (a seed run before migrate, as the test of the old history
 * does) has none to drop.
 */
export async function dropConnections(tx: Tx, calendarIds: readonly string[]): Promise<{ dropped: number; memberIds: string[] }> {
  const none = { dropped: 0, memberIds: [] };
  if (calendarIds.length === 0) return none;
  const table = await one<{ ok: boolean }>(tx, `select to_regclass('calendar_connections') is not null as ok`);
  if (!table?.ok) return none;
  const dropped = await rows<{ calendar_id: string }>(
    tx,
    'delete from calendar_connections where calendar_id = any($1) returning calendar_id',
    [calendarIds],
  );
  if (dropped.length === 0) return none;
  const owners = await rows<{ user_id: string }>(
    tx,
    `with cleared as (update calendars set sync_error = null where id = any($1) and sync_error is not null)
     select distinct user_id from calendars where id = any($1)`,
    [dropped.map((d) => d.calendar_id)],
  );
  return { dropped: dropped.length, memberIds: owners.map((o) => o.user_id) };
}

export function connectionOf(db: Db, calendarId: string): Promise<ConnectionRow | undefined> {
  return one<ConnectionRow>(db, 'select * from calendar_connections where calendar_id = $1', [calendarId]);
}

/**
 * Claims a calendar for one sync: sets the lease (when none is held or it ran out) and shows
 * SYNCING. NEEDS_REAUTH calendars are not claimed: syncing waits for new credentials.
 */
export async function claimSync(tx: Tx, calendarId: string, lease: string, leaseSeconds: number): Promise<ClaimedCalendar | undefined> {
  const claimed = await one<ClaimedCalendar>(
    tx,
    `update calendar_connections k set sync_lease = $2, sync_lease_until = now() + make_interval(secs => $3), last_attempt_at = now()
       from calendars c join members m on m.id = c.user_id
      where k.calendar_id = $1 and c.id = k.calendar_id and c.provider = any($4)
        and c.sync_status <> 'NEEDS_REAUTH'
        and (k.sync_lease is null or k.sync_lease_until < now())
      returning k.*, c.organization_id, c.user_id, c.provider, m.timezone as member_timezone`,
    [calendarId, lease, leaseSeconds, SYNCED_PROVIDERS],
  );
  if (claimed) await exec(tx, `update calendars set sync_status = 'SYNCING' where id = $1`, [calendarId]);
  return claimed;
}

/** Of these booking ids, those of the organization's bookings. */
export async function existingBookingIds(db: Db, organizationId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await rows<{ id: string }>(db, 'select id from bookings where organization_id = $1 and id = any($2::text[])', [
    organizationId,
    [...new Set(ids)],
  ]);
  return found.map((r) => r.id);
}

/** Locks the connection if this sync still holds its lease; false: the outcome must not be written. */
export async function holdsLease(tx: Tx, calendarId: string, lease: string): Promise<boolean> {
  return (
    (await one(tx, 'select 1 from calendar_connections where calendar_id = $1 and sync_lease = $2 for update', [calendarId, lease])) !==
    undefined
  );
}

export interface StoredResource {
  href: string;
  etag: string | null;
}

export function resourceEtags(db: Db, calendarId: string): Promise<StoredResource[]> {
  return rows<StoredResource>(db, 'select href, etag from calendar_resources where calendar_id = $1', [calendarId]);
}

export function resourceTexts(db: Db, calendarId: string, except: readonly string[]): Promise<{ href: string; data: string }[]> {
  return rows(db, 'select href, data from calendar_resources where calendar_id = $1 and not (href = any($2))', [calendarId, except]);
}

export interface ParsedResource {
  href: string;
  etag: string | null;
  data: string;
  events: number;
  skipped: number;
  starts: Date[];
  ends: Date[];
}

/**
 * Replaces resources (and their busy blocks) with what was read, and deletes those gone.
 * Returns how many busy blocks were removed and added, to tell whether busy time changed.
 */
export async function replaceResources(
  tx: Tx,
  calendarId: string,
  memberId: string,
  changed: readonly ParsedResource[],
  deleted: readonly string[],
): Promise<{ removed: number; added: number }> {
  let removed = 0;
  let added = 0;
  const gone = [...deleted, ...changed.map((r) => r.href)];
  if (gone.length > 0) {
    removed += await exec(tx, 'delete from calendar_busy where calendar_id = $1 and href = any($2)', [calendarId, gone]);
    await exec(tx, 'delete from calendar_resources where calendar_id = $1 and href = any($2)', [calendarId, deleted]);
  }
  for (let i = 0; i < changed.length; i += 1000) {
    const part = changed.slice(i, i + 1000);
    await rowsReplanned(
      tx,
      `insert into calendar_resources (calendar_id, href, etag, data, events, skipped)
       select $1, * from unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[])
       on conflict (calendar_id, href) do update set etag = excluded.etag, data = excluded.data,
         events = excluded.events, skipped = excluded.skipped`,
      [
        calendarId,
        part.map((r) => r.href),
        part.map((r) => r.etag),
        part.map((r) => r.data),
        part.map((r) => r.events),
        part.map((r) => r.skipped),
      ],
    );
    added += await insertBlocks(tx, calendarId, memberId, part);
  }
  return { removed, added };
}

async function insertBlocks(
  tx: Tx,
  calendarId: string,
  memberId: string,
  list: readonly Pick<ParsedResource, 'href' | 'starts' | 'ends'>[],
) {
  const hrefs: string[] = [];
  const starts: Date[] = [];
  const ends: Date[] = [];
  for (const r of list) {
    for (let k = 0; k < r.starts.length; k++) {
      hrefs.push(r.href);
      starts.push(r.starts[k]);
      ends.push(r.ends[k]);
    }
  }
  if (hrefs.length === 0) return 0;
  let n = 0;
  for (let i = 0; i < hrefs.length; i += 20_000) {
    n +=
      (
        await tx.query(
          `insert into calendar_busy (calendar_id, href, member_id, start_time, end_time)
       select $1, h, $2, s, e from unnest($3::text[], $4::timestamptz[], $5::timestamptz[]) as t(h, s, e)`,
          [calendarId, memberId, hrefs.slice(i, i + 20_000), starts.slice(i, i + 20_000), ends.slice(i, i + 20_000)],
        )
      ).rowCount ?? 0;
  }
  return n;
}

/** Busy blocks of resources kept as they were, expanded again for a new window. */
export async function reexpand(
  tx: Tx,
  calendarId: string,
  memberId: string,
  list: readonly Pick<ParsedResource, 'href' | 'starts' | 'ends' | 'events' | 'skipped'>[],
) {
  const hrefs = list.map((r) => r.href);
  const removed = await exec(tx, 'delete from calendar_busy where calendar_id = $1 and href = any($2)', [calendarId, hrefs]);
  const added = await insertBlocks(tx, calendarId, memberId, list);
  return { removed, added };
}

/**
 * Connected calendars of these organizations whose stored busy blocks were expanded for another
 * member or zone than their owner's now (a seed moved the calendar, or changed its member's
 * zone). Their blocks are moved to the owner at once, so that the owner is blocked and the
 * member it left is not; the caller enqueues their syncs, which expand everything again in the
 * owner's zone. Returns the calendars and every member whose busy time moved (both owners).
 * A database not yet migrated to 083 (a seed run before migrate) has none.
 */
export async function rehomeBusy(tx: Tx, organizationIds: readonly string[]): Promise<{ calendarIds: string[]; memberIds: string[] }> {
  const migrated = await one<{ ok: boolean }>(
    tx,
    `select exists (select 1 from information_schema.columns
                     where table_name = 'calendar_connections' and column_name = 'expanded_for') as ok`,
  );
  if (!migrated?.ok) return { calendarIds: [], memberIds: [] };
  // one statement: the stale calendars, the members their blocks leave, and the move itself
  const found = await one<{ calendar_ids: string[]; member_ids: string[] }>(
    tx,
    `with stale as (
       select k.calendar_id, c.user_id
         from calendar_connections k join calendars c on c.id = k.calendar_id join members m on m.id = c.user_id
        where c.organization_id = any($1) and k.expanded_for is not null
          and (k.expanded_for, k.expanded_timezone) is distinct from (c.user_id, m.timezone)
     ), leaving as (
       select distinct b.member_id, s.user_id from calendar_busy b join stale s on s.calendar_id = b.calendar_id
        where b.member_id <> s.user_id
     ), moved as (
       update calendar_busy b set member_id = s.user_id from stale s where b.calendar_id = s.calendar_id and b.member_id <> s.user_id
     )
     select array(select calendar_id from stale) as calendar_ids,
            array(select distinct x::text from leaving, unnest(array[leaving.member_id, leaving.user_id]) x) as member_ids`,
    [organizationIds],
  );
  return { calendarIds: found?.calendar_ids ?? [], memberIds: found?.member_ids ?? [] };
}

export interface SyncSuccess {
  syncToken: string | null;
  ctag: string | null;
  /** The member and zone its blocks were expanded for (the claimed calendar's). */
  expandedFor: string;
  expandedTimezone: string;
  windowStart: Date;
  windowEnd: Date;
  at: Date;
}

/**
 * The end of a successful sync: the new token and window, the lease released, SUCCESS with
 * lastSyncAt (or ERROR while a failed write-back is outstanding), and the calendar's totals.
 */
export async function finishSync(tx: Tx, calendarId: string, s: SyncSuccess): Promise<{ events: number; skipped: number; blocks: number }> {
  const totals = (await one<{ events: number; skipped: number; blocks: number }>(
    tx,
    `select coalesce(sum(events), 0)::int as events, coalesce(sum(skipped), 0)::int as skipped,
            (select count(*) from calendar_busy where calendar_id = $1)::int as blocks
       from calendar_resources where calendar_id = $1`,
    [calendarId],
  ))!;
  const k = (await one<{ write_error: string | null }>(
    tx,
    `update calendar_connections set sync_token = $2, ctag = $3, window_start = $4, window_end = $5, sync_lease = null,
            sync_lease_until = null, events_read = $6, skipped = $7, expanded_for = $8, expanded_timezone = $9
      where calendar_id = $1 returning write_error`,
    [calendarId, s.syncToken, s.ctag, s.windowStart, s.windowEnd, totals.events, totals.skipped, s.expandedFor, s.expandedTimezone],
  ))!;
  // A write-back refused with 401/403 while this sync ran (needsReauth) is newer news about the
  // credentials than this sync's success: the calendar stays NEEDS_REAUTH with its reason.
  await exec(
    tx,
    `update calendars
        set sync_status = case when sync_status = 'NEEDS_REAUTH' then sync_status when $2::text is null then 'SUCCESS' else 'ERROR' end,
            sync_error = case when sync_status = 'NEEDS_REAUTH' then sync_error else $2 end, last_sync_at = $3
      where id = $1`,
    [calendarId, k.write_error, s.at],
  );
  return totals;
}

/**
 * A failed sync: ERROR or NEEDS_REAUTH with the reason; stored busy time is left as it was. An
 * ERROR does not replace a NEEDS_REAUTH that a write-back set while the sync ran.
 */
export async function failSync(tx: Tx, calendarId: string, status: 'ERROR' | 'NEEDS_REAUTH', reason: string): Promise<void> {
  await exec(tx, 'update calendar_connections set sync_lease = null, sync_lease_until = null where calendar_id = $1', [calendarId]);
  await exec(
    tx,
    `update calendars set sync_status = $2, sync_error = $3 where id = $1 and ($2 = 'NEEDS_REAUTH' or sync_status <> 'NEEDS_REAUTH')`,
    [calendarId, status, reason],
  );
}

/** Connected calendars (CALDAV/APPLE with a connection) of the organization or all, optionally one. */
export function connectedCalendars(
  db: Db,
  calendarId?: string,
): Promise<{ id: string; calendar_name: string | null; sync_status: string }[]> {
  return rows(
    db,
    `select c.id, c.calendar_name, c.sync_status from calendars c join calendar_connections k on k.calendar_id = c.id
      where c.provider = any($1) and ($2::text is null or c.id = $2) order by c.created_at, c.id`,
    [SYNCED_PROVIDERS, calendarId ?? null],
  );
}

/** Connected calendars whose periodic sync is overdue (no attempt within twice the interval). */
export function overdueCalendars(db: Db, intervalSeconds: number): Promise<{ id: string }[]> {
  return rows(
    db,
    `select c.id from calendars c join calendar_connections k on k.calendar_id = c.id
      where c.provider = any($1) and c.sync_status <> 'NEEDS_REAUTH'
        and (k.last_attempt_at is null or k.last_attempt_at < now() - make_interval(secs => $2 * 2 + 60))`,
    [SYNCED_PROVIDERS, intervalSeconds],
  );
}
