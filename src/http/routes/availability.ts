import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { availabilityBody } from '../../domain/availability/get-availability.ts';
import type { Static } from 'typebox';
import type { AppDeps } from '../deps.ts';
import { AvailabilityQuery, AvailabilityResponse } from '../schemas/availability.ts';
import { errors, ref } from '../schemas/common.ts';

export const availabilityRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/availability',
    {
      schema: {
        tags: ['availability'],
        operationId: 'getAvailability',
        summary: 'Bookable slots of an event type on a range of local dates',
        description:
          'Slots whose start falls on start_date..end_date (inclusive) in `timezone`; times are UTC. ' +
          'Booking create accepts exactly these starts. See docs/scheduling.md for the rules.',
        querystring: AvailabilityQuery,
        response: { 200: ref(AvailabilityResponse, { description: 'the bookable slots' }), ...errors(400, 404) },
      },
    },
    async (req, reply) => {
      // The body comes pre-serialised from the answer cache (it has the response schema's shape).
      const body = await availabilityBody(deps.db, deps.freebusyCache, deps.calendarBusy, req.auth!, req.query, deps.now());
      return reply.type('application/json; charset=utf-8').send(body as unknown as Static<typeof AvailabilityResponse>);
    },
  );
};
