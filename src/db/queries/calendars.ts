import { randomBytes } from 'node:crypto';
import type { Db, Tx } from '../pool.ts';
import type { CalendarRow } from '../schema.ts';
import { exec, one, rows } from '../pool.ts';

export interface CalendarFilter {
  organizationId: string;
  userId?: string;
  teamId?: string;
  provider?: string;
  syncStatus?: string;
}

// Primary first, then oldest first (decisions.md §4a); id breaks ties so pages never overlap.
const ORDER = 'order by is_primary desc, created_at, id';

export async function list(db: Db, f: CalendarFilter, limit: number, offset: number): Promise<{ total: number; calendars: CalendarRow[] }> {
  const params: unknown[] = [f.organizationId];
  const where = ['organization_id = $1'];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  };
  add('user_id', f.userId);
  add('team_id', f.teamId);
  add('provider', f.provider);
  add('sync_status', f.syncStatus);
  const sql = where.join(' and ');
  const total = await one<{ n: number }>(db, `select count(*) as n from calendars where ${sql}`, params);
  const page = await rows<CalendarRow>(
    db,
    `select * from calendars where ${sql} ${ORDER} limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, limit, offset],
  );
  return { total: total?.n ?? 0, calendars: page };
}

export function ofUser(db: Db, organizationId: string, userId: string): Promise<CalendarRow[]> {
  return rows<CalendarRow>(db, `select * from calendars where organization_id = $1 and user_id = $2 ${ORDER}`, [organizationId, userId]);
}

/** The member's calendars of these providers stop being primary (connect picks a new one). */
export async function clearPrimary(tx: Tx, userId: string, providers: readonly string[]): Promise<void> {
  await exec(
    tx,
    'update calendars set is_primary = false, updated_at = clock_timestamp() where user_id = $1 and provider = any($2) and is_primary',
    [userId, providers],
  );
}

export interface ConnectedCalendar {
  organizationId: string;
  userId: string;
  teamId: string;
  provider: string;
  calendarId: string;
  calendarName: string;
  providerEmail: string | null;
  timezone: string;
  isPrimary: boolean;
}

/** A discovered calendar of a member, matched by its collection URL (calendar_id); returns its id. */
export async function upsertConnected(tx: Tx, c: ConnectedCalendar): Promise<string> {
  const existing = await one<{ id: string }>(
    tx,
    // the same collection, whether connected before by this command (its calendar_id is the URL)
    // or by a seed file (its connection's URL; its calendar_id is the file's)
    `select c.id from calendars c left join calendar_connections k on k.calendar_id = c.id
      where c.organization_id = $1 and c.user_id = $2 and (c.calendar_id = $3 or rtrim(k.url, '/') = rtrim($3, '/'))
      order by c.created_at limit 1`,
    [c.organizationId, c.userId, c.calendarId],
  );
  const id = existing?.id ?? `cal_${randomBytes(12).toString('hex')}`;
  await exec(
    tx,
    `insert into calendars (id, organization_id, user_id, team_id, provider, calendar_id, calendar_name, provider_email, timezone, is_primary)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     on conflict (id) do update set provider = excluded.provider, calendar_name = excluded.calendar_name,
       provider_email = excluded.provider_email, is_primary = excluded.is_primary, updated_at = clock_timestamp()`,
    [id, c.organizationId, c.userId, c.teamId, c.provider, c.calendarId, c.calendarName, c.providerEmail, c.timezone, c.isPrimary],
  );
  return id;
}
