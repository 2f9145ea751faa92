import type { Db } from '../pool.ts';
import type { CalendarRow } from '../schema.ts';
import { one, rows } from '../pool.ts';

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
  const page = await rows<CalendarRow>(db, `select * from calendars where ${sql} ${ORDER} limit $${params.length + 1} offset $${params.length + 2}`, [
    ...params,
    limit,
    offset,
  ]);
  return { total: total?.n ?? 0, calendars: page };
}

export function ofUser(db: Db, organizationId: string, userId: string): Promise<CalendarRow[]> {
  return rows<CalendarRow>(db, `select * from calendars where organization_id = $1 and user_id = $2 ${ORDER}`, [organizationId, userId]);
}
