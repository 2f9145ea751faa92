import type { Db } from '../../db/pool.ts';
import * as calendars from '../../db/queries/calendars.ts';
import * as members from '../../db/queries/members.ts';
import { NotFound, ValidationError } from '../errors.ts';
import { isMemberId } from '../members/member-id.ts';
import type { CalendarRow } from '../../db/schema.ts';

/** Largest `limit` of GET /calendars (documented in docs/scheduling.md). */
export const MAX_CALENDAR_LIMIT = 100;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A calendar integration, camelCase; its connection (URL, user, encrypted password) lives apart and is never shown. */
export function calendarJson(c: CalendarRow) {
  return {
    id: c.id,
    userId: c.user_id,
    teamId: c.team_id,
    provider: c.provider,
    calendarId: c.calendar_id,
    calendarName: c.calendar_name,
    providerEmail: c.provider_email,
    timezone: c.timezone,
    isPrimary: c.is_primary,
    syncStatus: c.sync_status,
    lastSyncAt: iso(c.last_sync_at),
    syncError: c.sync_error,
    supportsWebhooks: c.supports_webhooks,
    createdAt: c.created_at.toISOString(),
    updatedAt: c.updated_at.toISOString(),
  };
}

function requireUuid(value: string, field: string, where: string): void {
  if (!isMemberId(value)) throw new ValidationError(`${where} "${field}" must be a user id (UUID), got "${value}"`, field);
}

export interface CalendarListQuery {
  userId?: string;
  teamId?: string;
  provider?: string;
  syncStatus?: string;
  limit: number;
  offset: number;
}

export async function listCalendars(db: Db, organizationId: string, q: CalendarListQuery) {
  if (q.userId !== undefined) requireUuid(q.userId, 'userId', 'query parameter');
  const { total, calendars: page } = await calendars.list(db, { organizationId, ...q }, q.limit, q.offset);
  return {
    calendars: page.map(calendarJson),
    pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + q.limit < total },
  };
}

/** A user's calendars: 404 when the user is not an active member of the organization. */
export async function userCalendars(db: Db, organizationId: string, userId: string) {
  requireUuid(userId, 'userId', 'path parameter');
  const member = await members.findInOrganization(db, organizationId, userId);
  if (!member || !member.is_active) throw new NotFound(`user "${userId}" not found`);
  const list = await calendars.ofUser(db, organizationId, userId);
  return {
    userId,
    calendars: list.map((c) => {
      const full = calendarJson(c);
      return {
        id: full.id,
        provider: full.provider,
        calendarName: full.calendarName,
        providerEmail: full.providerEmail,
        isPrimary: full.isPrimary,
        syncStatus: full.syncStatus,
        lastSyncAt: full.lastSyncAt,
        syncError: full.syncError,
      };
    }),
  };
}
