import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getEventTypeFields } from '../../domain/event-types/fields.ts';
import { getEventType, listEventTypes } from '../../domain/event-types/read.ts';
import { createEventType, deleteEventType, updateEventType } from '../../domain/event-types/write.ts';
import type { AppDeps } from '../deps.ts';
import { DateTime, IdParam, Nullable, errors, ref } from '../schemas/common.ts';
import { CreateEventTypeBody, EventType, EventTypeDetail, EventTypeFields, UpdateEventTypeBody } from '../schemas/event-type.ts';

const tags = ['event types'];

export const eventTypeRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/event-types',
    {
      schema: {
        tags,
        operationId: 'listEventTypes',
        summary: 'List active event types, sorted by name',
        response: {
          200: Type.Object(
            {
              success: Type.Literal(true),
              event_types: Type.Array(ref(EventType)),
              eventTypes: Type.Array(ref(EventType), { description: 'the same list (camelCase alias)' }),
            },
            { description: 'every active event type' },
          ),
          ...errors(),
        },
      },
    },
    async (req) => {
      const list = await listEventTypes(deps.db, req.auth!.organizationId);
      return { success: true as const, event_types: list, eventTypes: list };
    },
  );

  app.get(
    '/event-types/:id',
    {
      schema: {
        tags,
        operationId: 'getEventType',
        summary: 'Read an event type with its custom fields',
        params: IdParam,
        response: {
          200: Type.Object({ success: Type.Literal(true), event_type: ref(EventTypeDetail) }, { description: 'the event type' }),
          ...errors(404),
        },
      },
    },
    async (req) => ({ success: true as const, event_type: await getEventType(deps.db, req.auth!.organizationId, req.params.id) }),
  );

  app.get(
    '/event-types/:id/fields',
    {
      schema: {
        tags,
        operationId: 'getEventTypeFields',
        summary: 'The booking form: standard fields and custom fields with their validation rules',
        params: IdParam,
        response: { 200: ref(EventTypeFields, { description: 'the fields of the booking form' }), ...errors(404) },
      },
    },
    async (req) => ({ success: true as const, ...(await getEventTypeFields(deps.db, req.auth!.organizationId, req.params.id)) }),
  );

  app.post(
    '/event-types',
    {
      schema: {
        tags,
        operationId: 'createEventType',
        summary: 'Create an event type',
        body: ref(CreateEventTypeBody),
        response: {
          201: Type.Object({ success: Type.Literal(true), event_type: ref(EventTypeDetail) }, { description: 'the new event type' }),
          ...errors(400, 409, 413),
        },
      },
    },
    async (req, reply) => {
      const eventType = await createEventType(deps.db, req.auth!.organizationId, req.body);
      return reply.code(201).send({ success: true as const, event_type: eventType });
    },
  );

  app.patch(
    '/event-types/:id',
    {
      schema: {
        tags,
        operationId: 'updateEventType',
        summary: 'Update an event type; omitted fields keep their values',
        params: IdParam,
        body: ref(UpdateEventTypeBody),
        response: {
          200: Type.Object(
            {
              success: Type.Literal(true),
              event_type: ref(EventTypeDetail),
              warning: Nullable(Type.String({ description: 'e.g. that existing bookings keep their old times' })),
            },
            { description: 'the updated event type' },
          ),
          ...errors(400, 404, 409, 413),
        },
      },
    },
    async (req) => ({
      success: true as const,
      ...(await updateEventType(deps.db, req.auth!.organizationId, req.params.id, req.body, deps.now())),
    }),
  );

  app.delete(
    '/event-types/:id',
    {
      schema: {
        tags,
        operationId: 'deleteEventType',
        summary: 'Soft-delete an event type (refused while it has active bookings)',
        params: IdParam,
        response: {
          200: Type.Object(
            {
              success: Type.Literal(true),
              event_type: Type.Object({ id: Type.String({ examples: ['et_8d1e4b7a92c3f0a15e6d'] }), deleted_at: DateTime }),
            },
            { description: 'the event type is deleted' },
          ),
          ...errors(404, 422),
        },
      },
    },
    async (req) => ({
      success: true as const,
      event_type: await deleteEventType(deps.db, req.auth!.organizationId, req.params.id, deps.now()),
    }),
  );
};
