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
import { ATTENDEE_FIELDS, LIMITS } from '../../domain/bookings/validate.ts';
import type { AppDeps } from '../deps.ts';
import { BookingEnvelope, BookingList, BookingStatus } from '../schemas/booking.ts';
import { PHONE_RULE } from '../../domain/phone.ts';
import { DateTime, IdParam, Nullable, errors } from '../schemas/common.ts';

// The rules beyond type and length are the domain's (src/domain/bookings/validate.ts), which
// names the field in its 400; the descriptions carry them into the OpenAPI document.
const AttendeeIn = Type.Object({
  name: Type.String({ maxLength: LIMITS.nameLength, description: 'not blank' }),
  email: Type.String({ maxLength: LIMITS.emailLength, description: 'an email address, local@domain.tld' }),
  phone: Type.Optional(Nullable(Type.String({ maxLength: 40, description: PHONE_RULE }))),
  timezone: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'an IANA time zone, e.g. Europe/London' }))),
});

// Optional fields sent as null count as not sent.
const CreateBody = Type.Object({
  event_type_id: Type.String({ minLength: 1, maxLength: 255 }),
  requested_time: DateTime,
  attendee: AttendeeIn,
  custom_fields: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  metadata: Type.Optional(
    Nullable(Type.Record(Type.String(), Type.Unknown(), {
      description:
        `free-form, returned as sent: values may be any JSON (objects, arrays, null); at most ${LIMITS.metadataKeys} top-level keys ` +
        `of 1..${LIMITS.metadataKeyLength} characters, at most ${LIMITS.metadataBytes / 1024} KB as JSON`,
      maxProperties: LIMITS.metadataKeys,
      propertyNames: { minLength: 1, maxLength: LIMITS.metadataKeyLength },
    })),
  ),
  assign_to: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  external_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
});

/** The create body with nulls of optional fields dropped (they mean "not sent"). */
function withoutNulls(body: Static<typeof CreateBody>): CreateInput {
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
  status: Type.Optional(BookingStatus),
  event_type_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  assigned_to_id: Type.Optional(Type.String({ format: 'uuid' })),
  attendee_email: Type.Optional(Type.String({ format: 'email', maxLength: LIMITS.emailLength })),
  start_date: Type.Optional(Type.String({ description: 'bookings starting at or after this instant (date-time, or a date = its midnight UTC)' })),
  end_date: Type.Optional(Type.String({ description: 'bookings starting before this instant' })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
});

// PATCH changes attendee details only. Unlike elsewhere, fields it does not name are refused
// rather than ignored, so a client trying to move or re-status a booking through PATCH
// (start_time, status, event_type_id, team_id, api_key_id, ...) learns it did nothing. The
// rules beyond type and length are the domain's, as for the create (validateAttendeePatch);
// x-error-messages words the 400s (src/http/errors.ts).
const PatchBody = Type.Object(
  {
    attendee: Type.Object(
      {
        name: Type.Optional(Type.String({ maxLength: LIMITS.nameLength, description: 'not blank' })),
        email: Type.Optional(Type.String({
          maxLength: LIMITS.emailLength, description: 'an email address, local@domain.tld; a changed email sends a fresh confirmation there',
        })),
        phone: Type.Optional(Nullable(Type.String({ maxLength: 40, description: `${PHONE_RULE}; null or "" clears it` }))),
        timezone: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'an IANA time zone, e.g. Europe/London; null or "" clears it' }))),
      },
      {
        additionalProperties: false,
        minProperties: 1,
        description: 'the fields to change, at least one; the others keep their values',
        'x-error-messages': {
          additionalProperties: `cannot be changed: allowed are ${ATTENDEE_FIELDS.join(', ')}`,
          minProperties: 'has no fields to update',
          type: 'must be an object',
        },
      },
    ),
  },
  {
    additionalProperties: false,
    description: 'Only `attendee` may be changed: any other field (start_time, status, event_type_id, team_id, api_key_id, ...) is 400',
    'x-error-messages': {
      additionalProperties: 'cannot be changed: PATCH updates attendee details only',
      required: 'is required: nothing to update',
      type: 'must be a JSON object with "attendee"',
    },
  },
);
const Reason = Type.Optional(Nullable(Type.String({ maxLength: LIMITS.reasonLength })));
const CancelBody = Type.Union([Type.Object({ reason: Reason }), Type.Null()]);
const RescheduleBody = Type.Object({ start_time: DateTime, reason: Reason });
const ExternalParam = Type.Object({ externalId: Type.String({ minLength: 1, maxLength: 255 }) });

const one = (description: string, ...statuses: number[]) => ({ 200: { ...BookingEnvelope, description }, ...errors(...statuses) });

export const bookingRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const caller = (auth: Caller | null): Caller => ({ organizationId: auth!.organizationId, mode: auth!.mode });
  const envelope = (row: Parameters<typeof bookingJson>[0]) => ({ success: true as const, booking: bookingJson(row) });
  const tags = ['bookings'];

  app.post(
    '/bookings',
    {
      schema: {
        tags,
        summary: 'Create a booking (DRAFT; routing runs asynchronously)',
        body: CreateBody,
        response: { 201: BookingEnvelope, 200: { ...BookingEnvelope, description: 'idempotent replay' }, ...errors(400, 409, 413, 422) },
      },
    },
    async (req, reply) => reply.code(201).send(envelope(await createBooking(deps, caller(req.auth), withoutNulls(req.body)))),
  );

  app.get(
    '/bookings',
    { schema: { tags, summary: 'List bookings, newest first', querystring: ListQuery, response: { 200: BookingList, ...errors(400) } } },
    async (req) => ({ success: true as const, ...(await listBookings(deps.db, caller(req.auth), req.query)) }),
  );

  app.get(
    '/bookings/:id',
    { schema: { tags, summary: 'Read a booking', params: IdParam, response: one('the booking', 404) } },
    async (req) => envelope(await getBooking(deps.db, caller(req.auth), req.params.id)),
  );

  app.get(
    '/bookings/external/:externalId',
    { schema: { tags, summary: 'Read a booking by its external_id', params: ExternalParam, response: one('the booking', 404) } },
    async (req) => envelope(await getBookingByExternalId(deps.db, caller(req.auth), req.params.externalId)),
  );

  app.patch(
    '/bookings/:id',
    {
      schema: {
        tags,
        summary: 'Update attendee details',
        params: IdParam,
        body: PatchBody,
        response: one('the updated booking', 400, 404, 409, 413, 422),
      },
    },
    async (req) => envelope(await updateBookingAttendee(deps, caller(req.auth), req.params.id, req.body.attendee)),
  );

  app.delete(
    '/bookings/:id',
    {
      schema: { tags, summary: 'Cancel a booking', params: IdParam, body: CancelBody, response: one('the cancelled booking', 400, 404, 409, 413, 422) },
    },
    async (req) => envelope(await cancelBooking(deps, caller(req.auth), req.params.id, req.body?.reason)),
  );

  app.post(
    '/bookings/:id/reschedule',
    {
      schema: {
        tags,
        summary: 'Move a booking to another slot (a new booking in RESCHEDULED; this one is CANCELLED)',
        params: IdParam,
        body: RescheduleBody,
        response: one('the new booking', 400, 404, 409, 413, 422),
      },
    },
    async (req) => envelope(await rescheduleBooking(deps, caller(req.auth), req.params.id, { start_time: req.body.start_time, reason: req.body.reason ?? undefined })),
  );

  const statusRoute = (path: string, summary: string, run: typeof confirmBooking) =>
    app.post(
      `/bookings/:id/${path}`,
      { schema: { tags, summary, params: IdParam, response: one('the booking', 400, 404, 409, 413, 422) } },
      async (req) => envelope(await run(deps, caller(req.auth), req.params.id)),
    );
  statusRoute('confirm', 'Confirm a booking awaiting the host (also RESCHEDULED → SCHEDULED)', confirmBooking);
  statusRoute('complete', 'Mark a booking completed', completeBooking);
  statusRoute('no-show', 'Mark the attendee as not shown', markNoShow);
};
