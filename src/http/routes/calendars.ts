import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listCalendars, userCalendars } from '../../domain/calendars/calendars.ts';
import type { AppDeps } from '../deps.ts';
import { CalendarListQuery, CalendarPagination, Calendar, UserCalendar } from '../schemas/calendar.ts';
import { errors, ref } from '../schemas/common.ts';

const tags = ['calendars'];

// Calendars speak camelCase natively (api-spec Versioning), so the global alias renaming is off.
export const calendarRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/calendars',
    {
      config: { camelCase: true },
      schema: {
        tags,
        operationId: 'listCalendars',
        summary: 'List calendar integrations, primary first, then oldest first',
        description: 'Read-only metadata; no credentials or tokens are ever returned.',
        querystring: CalendarListQuery,
        response: {
          200: Type.Object(
            { success: Type.Literal(true), calendars: Type.Array(ref(Calendar)), pagination: ref(CalendarPagination) },
            { description: 'a page of calendar integrations' },
          ),
          ...errors(400),
        },
      },
    },
    async (req) => ({ success: true as const, ...(await listCalendars(deps.db, req.auth!.organizationId, req.query)) }),
  );

  app.get(
    '/calendars/:userId',
    {
      config: { camelCase: true },
      schema: {
        tags,
        operationId: 'listUserCalendars',
        summary: "A user's calendar integrations",
        params: Type.Object({
          userId: Type.String({ format: 'uuid', maxLength: 100, description: 'a member id (UUID); anything else is 400' }),
        }),
        response: {
          200: Type.Object(
            { success: Type.Literal(true), userId: Type.String({ format: 'uuid' }), calendars: Type.Array(ref(UserCalendar)) },
            { description: "the user's calendars" },
          ),
          ...errors(400, 404),
        },
      },
    },
    async (req) => ({ success: true as const, ...(await userCalendars(deps.db, req.auth!.organizationId, req.params.userId)) }),
  );
};
