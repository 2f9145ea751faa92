import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { FREEBUSY_TTL_SECONDS } from '../../domain/availability/freebusy-cache.ts';
import { getFreeBusy } from '../../domain/availability/get-freebusy.ts';
import type { AppDeps } from '../deps.ts';
import { DateTime, errors } from '../schemas/common.ts';

const FreeBusyQuery = Type.Object({
  start: Type.String({ format: 'date-time', description: 'ISO 8601 date-time with offset' }),
  end: Type.String({ format: 'date-time', description: 'at most 30 days after start' }),
  time_slot: Type.Integer({ minimum: 15, maximum: 120, default: 30, description: 'minutes, 15..120 (alias timeSlot)' }),
});

const FreeBusyResponse = Type.Object(
  {
    success: Type.Literal(true),
    user_id: Type.String({ format: 'uuid' }),
    start: DateTime,
    end: DateTime,
    time_slot: Type.Integer(),
    slots: Type.Array(
      Type.Object({
        start: DateTime,
        end: DateTime,
        status: Type.Union([Type.Literal('free'), Type.Literal('busy')]),
        reason: Type.Optional(
          Type.Union([
            Type.Literal('booking'),
            Type.Literal('calendar'),
            Type.Literal('out_of_office'),
            Type.Literal('outside_working_hours'),
          ]),
        ),
      }),
    ),
  },
  {
    examples: [
      {
        success: true,
        user_id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
        start: '2026-12-01T09:00:00.000Z',
        end: '2026-12-01T10:00:00.000Z',
        time_slot: 30,
        slots: [
          { start: '2026-12-01T09:00:00.000Z', end: '2026-12-01T09:30:00.000Z', status: 'busy', reason: 'booking' },
          { start: '2026-12-01T09:30:00.000Z', end: '2026-12-01T10:00:00.000Z', status: 'free' },
        ],
      },
    ],
  },
);

export const freebusyRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/freebusy/:userId',
    {
      schema: {
        tags: ['availability'],
        operationId: 'getFreeBusy',
        summary: 'Free and busy blocks of a user',
        description:
          'No key needed; a key, if sent, must be valid and the user must be in its organization (else 404). ' +
          `Cached for ${FREEBUSY_TTL_SECONDS} seconds; a booking change of the user drops the cached answers.`,
        security: [],
        params: Type.Object({
          userId: Type.String({ format: 'uuid', maxLength: 100, description: 'a member id (UUID); anything else is 400' }),
        }),
        querystring: FreeBusyQuery,
        response: { 200: { ...FreeBusyResponse, description: 'free and busy blocks tiling [start, end)' }, ...errors(400, 404) },
      },
    },
    async (req, reply) => {
      const caller = req.auth
        ? { organizationId: req.auth.organizationId, mode: req.auth.mode }
        : { organizationId: null, mode: 'live' as const };
      const { body, cached } = await getFreeBusy(deps.db, deps.freebusyCache, caller, req.params.userId, req.query);
      reply.header('Cache-Control', `private, max-age=${FREEBUSY_TTL_SECONDS}`).header('X-Cache', cached ? 'HIT' : 'MISS');
      // The body is cached pre-serialised; it has the response schema's shape.
      return reply.type('application/json; charset=utf-8').send(body as unknown as Static<typeof FreeBusyResponse>);
    },
  );
};
