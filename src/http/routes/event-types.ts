import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getEventTypeFields } from '../../domain/event-types/fields.ts';
import { getEventType, listEventTypes } from '../../domain/event-types/read.ts';
import { createEventType, deleteEventType, updateEventType } from '../../domain/event-types/write.ts';
import type { AppDeps } from '../deps.ts';
import { DateTime, IdParam, Nullable, errors } from '../schemas/common.ts';
import { CreateEventTypeBody, EventType, EventTypeDetail, EventTypeFields, UpdateEventTypeBody } from '../schemas/event-type.ts';

const tags = ['event types'];

export const eventTypeRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/event-types',
    {
      schema: {
        tags,
        summary: 'List active event types, sorted by name',
        response: {
          200: Type.Object({ success: Type.Literal(true), event_types: Type.Array(EventType), eventTypes: Type.Array(EventType) }),
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
        summary: 'Read an event type with its custom fields',
        params: IdParam,
        response: { 200: Type.Object({ success: Type.Literal(true), event_type: EventTypeDetail }), ...errors(404) },
      },
    },
    async (req) => ({ success: true as const, event_type: await getEventType(deps.db, req.auth!.organizationId, req.params.id) }),
  );

  app.get(
    '/event-types/:id/fields',
    {
      schema: {
        tags,
        summary: 'The booking form: standard fields and custom fields with their validation rules',
        params: IdParam,
        response: { 200: EventTypeFields, ...errors(404) },
      },
    },
    async (req) => ({ success: true as const, ...(await getEventTypeFields(deps.db, req.auth!.organizationId, req.params.id)) }),
  );

  app.post(
    '/event-types',
    {
      schema: {
        tags,
        summary: 'Create an event type',
        body: CreateEventTypeBody,
        response: { 201: Type.Object({ success: Type.Literal(true), event_type: EventTypeDetail }), ...errors(400, 409, 413) },
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
        summary: 'Update an event type; omitted fields keep their values',
        params: IdParam,
        body: UpdateEventTypeBody,
        response: {
          200: Type.Object({ success: Type.Literal(true), event_type: EventTypeDetail, warning: Nullable(Type.String()) }),
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
        summary: 'Soft-delete an event type (refused while it has active bookings)',
        params: IdParam,
        response: {
          200: Type.Object({ success: Type.Literal(true), event_type: Type.Object({ id: Type.String(), deleted_at: DateTime }) }),
          ...errors(404, 422),
        },
      },
    },
    async (req) => ({ success: true as const, event_type: await deleteEventType(deps.db, req.auth!.organizationId, req.params.id, deps.now()) }),
  );
};
