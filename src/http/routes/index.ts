import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../deps.ts';
import { availabilityRoutes } from './availability.ts';
import { bookingRoutes } from './bookings.ts';
import { calendarRoutes } from './calendars.ts';
import { eventTypeRoutes } from './event-types.ts';
import { freebusyRoutes } from './freebusy.ts';
import { teamMemberRoutes } from './team-members.ts';
import { webhookRoutes } from './webhooks.ts';

/** Every resource's routes; mounted at /v1 and, as aliases, at the root. */
export const apiRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  await app.register(eventTypeRoutes, { deps });
  await app.register(availabilityRoutes, { deps });
  await app.register(freebusyRoutes, { deps });
  await app.register(teamMemberRoutes, { deps });
  await app.register(calendarRoutes, { deps });
  await app.register(bookingRoutes, { deps });
  await app.register(webhookRoutes, { deps });
};
