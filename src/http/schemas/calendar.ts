import { Type } from 'typebox';
import { MAX_CALENDAR_LIMIT } from '../../domain/calendars/calendars.ts';
import { DateTime, Nullable, StringEnum, ref } from './common.ts';

export { CalendarPagination } from './common.ts';

export const Provider = StringEnum(['GOOGLE', 'MICROSOFT', 'APPLE', 'CALDAV'], {
  $id: 'CalendarProvider',
  description: 'CALDAV and APPLE (iCloud) calendars with a connection are synced; GOOGLE and MICROSOFT are metadata only',
});
const SyncError = Nullable(
  Type.String({ description: 'why the last sync or a booking write-back failed (never credentials); null otherwise' }),
);
export const SyncStatus = StringEnum(['PENDING', 'SYNCING', 'SUCCESS', 'ERROR', 'NEEDS_REAUTH'], {
  $id: 'CalendarSyncStatus',
  description:
    "PENDING: not yet synced; SYNCING: in progress; SUCCESS, ERROR: the last sync's outcome; NEEDS_REAUTH: the user must reconnect.",
});

const CALENDAR_EXAMPLE = {
  id: 'cal_grace_google',
  userId: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  teamId: 'team_sales',
  provider: 'GOOGLE',
  calendarId: 'grace@acme.example',
  calendarName: 'Work',
  providerEmail: 'grace@acme.example',
  timezone: 'Europe/Berlin',
  isPrimary: true,
  syncStatus: 'SUCCESS',
  lastSyncAt: '2026-11-25T07:00:00.000Z',
  syncError: null,
  supportsWebhooks: true,
  createdAt: '2026-10-01T12:00:00.000Z',
  updatedAt: '2026-11-25T07:00:00.000Z',
};

export const Calendar = Type.Object(
  {
    id: Type.String(),
    userId: Type.String({ format: 'uuid' }),
    teamId: Type.String(),
    provider: ref(Provider),
    calendarId: Type.String(),
    calendarName: Nullable(Type.String()),
    providerEmail: Nullable(Type.String()),
    timezone: Nullable(Type.String()),
    isPrimary: Type.Boolean(),
    syncStatus: ref(SyncStatus),
    lastSyncAt: Nullable(DateTime),
    syncError: SyncError,
    supportsWebhooks: Type.Boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Calendar', description: 'A calendar integration (metadata only: never credentials or tokens).', examples: [CALENDAR_EXAMPLE] },
);

export const UserCalendar = Type.Object(
  {
    id: Type.String(),
    provider: ref(Provider),
    calendarName: Nullable(Type.String()),
    providerEmail: Nullable(Type.String()),
    isPrimary: Type.Boolean(),
    syncStatus: ref(SyncStatus),
    lastSyncAt: Nullable(DateTime),
    syncError: SyncError,
  },
  {
    $id: 'UserCalendar',
    description: 'A calendar integration as listed for one user.',
    examples: [
      (({ id, provider, calendarName, providerEmail, isPrimary, syncStatus, lastSyncAt, syncError }) => ({
        id,
        provider,
        calendarName,
        providerEmail,
        isPrimary,
        syncStatus,
        lastSyncAt,
        syncError,
      }))(CALENDAR_EXAMPLE),
    ],
  },
);

export const CalendarListQuery = Type.Object({
  userId: Type.Optional(Type.String({ format: 'uuid', maxLength: 100, description: 'a member id (UUID); anything else is 400' })),
  teamId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  provider: Type.Optional(ref(Provider)),
  syncStatus: Type.Optional(ref(SyncStatus)),
  limit: Type.Integer({ minimum: 1, maximum: MAX_CALENDAR_LIMIT, default: 50, description: `1..${MAX_CALENDAR_LIMIT}` }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
});
