import { Type } from 'typebox';
import { MAX_CALENDAR_LIMIT } from '../../domain/calendars/calendars.ts';
import { DateTime, Nullable } from './common.ts';

export const Provider = Type.Union([Type.Literal('GOOGLE'), Type.Literal('MICROSOFT'), Type.Literal('APPLE')]);
export const SyncStatus = Type.Union([
  Type.Literal('PENDING'),
  Type.Literal('SYNCING'),
  Type.Literal('SUCCESS'),
  Type.Literal('ERROR'),
  Type.Literal('NEEDS_REAUTH'),
]);

export const Calendar = Type.Object({
  id: Type.String(),
  userId: Type.String({ format: 'uuid' }),
  teamId: Type.String(),
  provider: Provider,
  calendarId: Type.String(),
  calendarName: Nullable(Type.String()),
  providerEmail: Nullable(Type.String()),
  timezone: Nullable(Type.String()),
  isPrimary: Type.Boolean(),
  syncStatus: SyncStatus,
  lastSyncAt: Nullable(DateTime),
  supportsWebhooks: Type.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const UserCalendar = Type.Object({
  id: Type.String(),
  provider: Provider,
  calendarName: Nullable(Type.String()),
  providerEmail: Nullable(Type.String()),
  isPrimary: Type.Boolean(),
  syncStatus: SyncStatus,
  lastSyncAt: Nullable(DateTime),
});

export const CalendarListQuery = Type.Object({
  userId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'a member id (UUID); anything else is 400' })),
  teamId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  provider: Type.Optional(Provider),
  syncStatus: Type.Optional(SyncStatus),
  limit: Type.Integer({ minimum: 1, maximum: MAX_CALENDAR_LIMIT, default: 50, description: `1..${MAX_CALENDAR_LIMIT}` }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
});

export const CalendarPagination = Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(), hasMore: Type.Boolean() });
