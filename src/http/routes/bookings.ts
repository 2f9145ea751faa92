import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { cancelBooking, completeBooking, confirmBooking, markNoShow } from '../../domain/bookings/change.ts';
import type { CreateInput } from '../../domain/bookings/create.ts';
import type { Caller } from '../../domain/vocabulary.ts';
import { createBooking } from '../../domain/bookings/create.ts';
import { bookingJson } from '../../domain/bookings/present.ts';
import { getBooking, getBookingByExternalId, listBookings } from '../../domain/bookings/read.ts';
import { rescheduleBooking } from '../../domain/bookings/reschedule.ts';
import { updateBookingAttendee } from '../../domain/bookings/update-attendee.ts';
import { LIMITS } from '../../domain/bookings/validate.ts';
import type { AppDeps } from '../deps.ts';
import {
  BookingEnvelope,
  BookingList,
  BookingStatus,
  CancelBookingBody,
  CreateBookingBody,
  RescheduleBookingBody,
  UpdateBookingBody,
} from '../schemas/booking.ts';
import { IdParam, errors, ref } from '../schemas/common.ts';

/** The create body with nulls of optional fields dropped (they mean "not sent"). */
function withoutNulls(body: Static<typeof CreateBookingBody>): CreateInput {
  const { custom_fields, metadata, assign_to, external_id, ...rest } = body;
  return {
    ...rest,
    ...(custom_fields != null && { custom_fields }),
    ...(metadata != null && { metadata }),
    ...(assign_to != null && { assign_to }),
    ...(external_id != null && { external_id }),
  };
}

const ListQuery = Type.Object({
  status: Type.Optional(ref(BookingStatus)),
  event_type_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  assigned_to_id: Type.Optional(Type.String({ format: 'uuid' })),
  attendee_email: Type.Optional(Type.String({ format: 'email', maxLength: LIMITS.emailLength })),
  start_date: Type.Optional(
    Type.String({ description: 'bookings starting at or after this instant (date-time, or a date = its midnight UTC)' }),
  ),
  end_date: Type.Optional(Type.String({ description: 'bookings starting before this instant' })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
});

const ExternalParam = Type.Object({ externalId: Type.String({ minLength: 1, maxLength: 255 }) });

const one = (description: string, ...statuses: number[]) => ({ 200: ref(BookingEnvelope, { description }), ...errors(...statuses) });

export const bookingRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const caller = (auth: Caller | null): Caller => ({ organizationId: auth!.organizationId, mode: auth!.mode });
  const envelope = (row: Parameters<typeof bookingJson>[0]) => ({ success: true as const, booking: bookingJson(row) });
  const tags = ['bookings'];

  app.post(
    '/bookings',
    {
      schema: {
        tags,
        operationId: 'createBooking',
        summary: 'Create a booking (DRAFT; routing runs asynchronously)',
        body: ref(CreateBookingBody),
        response: {
          201: ref(BookingEnvelope, { description: 'the new booking, in DRAFT until routing assigns a member' }),
          200: ref(BookingEnvelope, { description: 'a replay of the first answer (Idempotency-Key), with idempotent_replay: true' }),
          ...errors(400, 409, 413, 422),
        },
      },
    },
    async (req, reply) => reply.code(201).send(envelope(await createBooking(deps, caller(req.auth), withoutNulls(req.body)))),
  );

  app.get(
    '/bookings',
    {
      schema: {
        tags,
        operationId: 'listBookings',
        summary: 'List bookings, newest first',
        querystring: ListQuery,
        response: { 200: ref(BookingList, { description: 'a page of bookings' }), ...errors(400) },
      },
    },
    async (req) => ({ success: true as const, ...(await listBookings(deps.db, caller(req.auth), req.query)) }),
  );

  app.get(
    '/bookings/:id',
    { schema: { tags, operationId: 'getBooking', summary: 'Read a booking', params: IdParam, response: one('the booking', 404) } },
    async (req) => envelope(await getBooking(deps.db, caller(req.auth), req.params.id)),
  );

  app.get(
    '/bookings/external/:externalId',
    {
      schema: {
        tags,
        operationId: 'getBookingByExternalId',
        summary: 'Read a booking by its external_id',
        params: ExternalParam,
        response: one('the booking', 404),
      },
    },
    async (req) => envelope(await getBookingByExternalId(deps.db, caller(req.auth), req.params.externalId)),
  );

  app.patch(
    '/bookings/:id',
    {
      schema: {
        tags,
        operationId: 'updateBooking',
        summary: 'Update attendee details',
        params: IdParam,
        body: ref(UpdateBookingBody),
        response: one('the updated booking', 400, 404, 409, 413, 422),
      },
    },
    async (req) => envelope(await updateBookingAttendee(deps, caller(req.auth), req.params.id, req.body.attendee)),
  );

  app.delete(
    '/bookings/:id',
    {
      schema: {
        tags,
        operationId: 'cancelBooking',
        summary: 'Cancel a booking',
        params: IdParam,
        body: ref(CancelBookingBody),
        response: one('the cancelled booking', 400, 404, 409, 413, 422),
      },
    },
    async (req) => envelope(await cancelBooking(deps, caller(req.auth), req.params.id, req.body?.reason)),
  );

  app.post(
    '/bookings/:id/reschedule',
    {
      schema: {
        tags,
        operationId: 'rescheduleBooking',
        summary: 'Move a booking to another slot (a new booking in RESCHEDULED; this one is CANCELLED)',
        params: IdParam,
        body: ref(RescheduleBookingBody),
        response: one('the new booking', 400, 404, 409, 413, 422),
      },
    },
    async (req) =>
      envelope(
        await rescheduleBooking(deps, caller(req.auth), req.params.id, {
          start_time: req.body.start_time,
          reason: req.body.reason ?? undefined,
        }),
      ),
  );

  const statusRoute = (path: string, operationId: string, summary: string, run: typeof confirmBooking) =>
    app.post(
      `/bookings/:id/${path}`,
      { schema: { tags, operationId, summary, params: IdParam, response: one('the booking', 400, 404, 409, 413, 422) } },
      async (req) => envelope(await run(deps, caller(req.auth), req.params.id)),
    );
  statusRoute('confirm', 'confirmBooking', 'Confirm a booking awaiting the host (also RESCHEDULED → SCHEDULED)', confirmBooking);
  statusRoute('complete', 'completeBooking', 'Mark a booking completed', completeBooking);
  statusRoute('no-show', 'markBookingNoShow', 'Mark the attendee as not shown', markNoShow);
};
