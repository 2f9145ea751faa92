import { Type } from 'typebox';
import { ATTENDEE_FIELDS, LIMITS } from '../../domain/bookings/validate.ts';
import { PHONE_RULE } from '../../domain/phone.ts';
import { CursorPagination, DateTime, Nullable, StringEnum, ref } from './common.ts';

export const BOOKING_STATUSES = ['DRAFT', 'SCHEDULED', 'PENDING_CONFIRMATION', 'RESCHEDULED', 'CANCELLED', 'COMPLETED', 'NO_SHOW'] as const;

export const BookingStatus = StringEnum(BOOKING_STATUSES, {
  $id: 'BookingStatus',
  description:
    'DRAFT: created, routing in progress (transient); SCHEDULED: assigned and confirmed; PENDING_CONFIRMATION: waiting for ' +
    'the host; RESCHEDULED: active at a new time; COMPLETED, CANCELLED, NO_SHOW: terminal.',
});

const START = '2026-12-01T09:00:00.000Z';
const END = '2026-12-01T09:30:00.000Z';
const CREATED = '2026-11-20T14:03:12.000Z';

export const AttendeeOut = Type.Object(
  {
    name: Type.String(),
    email: Type.String(),
    phone: Nullable(Type.String()),
    timezone: Nullable(Type.String({ description: 'IANA zone' })),
  },
  {
    $id: 'Attendee',
    description: 'The person who booked.',
    examples: [{ name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958', timezone: 'Europe/London' }],
  },
);

// The rules beyond type and length are the domain's (src/domain/bookings/validate.ts), which
// names the field in its 400; the descriptions carry them into the OpenAPI document.
export const AttendeeIn = Type.Object(
  {
    name: Type.String({ maxLength: LIMITS.nameLength, description: 'not blank' }),
    email: Type.String({ maxLength: LIMITS.emailLength, description: 'an email address, local@domain.tld' }),
    phone: Type.Optional(Nullable(Type.String({ maxLength: 40, description: PHONE_RULE }))),
    timezone: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'an IANA time zone, e.g. Europe/London' }))),
  },
  {
    $id: 'AttendeeInput',
    description: 'The person booking.',
    examples: [{ name: 'Ada Lovelace', email: 'ada@example.com', timezone: 'Europe/London' }],
  },
);

/** Must list every field bookingJson() returns: the serializer drops the rest. */
export const Booking = Type.Object(
  {
    id: Type.String(),
    status: ref(BookingStatus),
    event_type_id: Type.String(),
    start_time: DateTime,
    end_time: DateTime,
    attendee: ref(AttendeeOut),
    custom_fields: Type.Record(Type.String(), Type.Unknown(), { description: "answers to the event type's custom fields, by key" }),
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'free-form, as sent on create' }),
    external_id: Nullable(Type.String({ description: 'your own id; GET /v1/bookings/external/{externalId} finds the booking by it' })),
    assigned_to_id: Nullable(Type.String({ description: 'the team member chosen by routing (or assign_to); null while DRAFT' })),
    host_ids: Type.Array(Type.String(), { description: 'every host (COLLECTIVE: all of them; else the assigned member)' }),
    cancellation_reason: Nullable(Type.String()),
    cancelled_at: Nullable(DateTime),
    rescheduled_from: Nullable(Type.String({ description: 'on the booking a reschedule created: the old booking' })),
    rescheduled_to: Nullable(Type.String({ description: 'on a rescheduled (now CANCELLED) booking: the new booking' })),
    livemode: Type.Boolean({ description: 'false for bookings made with a test key' }),
    created_at: DateTime,
    updated_at: DateTime,
    idempotent_replay: Type.Optional(Type.Boolean()),
  },
  {
    $id: 'Booking',
    description: 'A booked meeting of an event type with one attendee.',
    examples: [
      {
        id: 'bkg_5f0c2a9e41d7b3a08c6e1f24',
        status: 'SCHEDULED',
        event_type_id: 'et_8d1e4b7a92c3f0a15e6d',
        start_time: START,
        end_time: END,
        attendee: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958', timezone: 'Europe/London' },
        custom_fields: { company: 'Analytical Engines Ltd' },
        metadata: { crm_lead_id: 'L-1042' },
        external_id: 'crm-1042',
        assigned_to_id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
        host_ids: ['6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b'],
        cancellation_reason: null,
        cancelled_at: null,
        rescheduled_from: null,
        rescheduled_to: null,
        livemode: false,
        created_at: CREATED,
        updated_at: CREATED,
      },
    ],
  },
);

export const BookingEnvelope = Type.Object(
  {
    success: Type.Literal(true),
    booking: ref(Booking),
    idempotent_replay: Type.Optional(Type.Boolean({ description: 'true on a replay of a stored answer (Idempotency-Key)' })),
  },
  { $id: 'BookingResponse', description: 'One booking.' },
);

export const BookingList = Type.Object(
  {
    success: Type.Literal(true),
    bookings: Type.Array(ref(Booking)),
    pagination: ref(CursorPagination),
  },
  { $id: 'BookingList', description: 'A page of bookings, newest first.' },
);

// Optional fields sent as null count as not sent.
export const CreateBookingBody = Type.Object(
  {
    event_type_id: Type.String({ minLength: 1, maxLength: 255 }),
    requested_time: Type.String({ format: 'date-time', description: 'a slot start GET /v1/availability lists' }),
    attendee: ref(AttendeeIn),
    custom_fields: Type.Optional(
      Nullable(
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'answers by key, as GET /v1/event-types/{id}/fields describes them; unknown keys are ignored',
        }),
      ),
    ),
    metadata: Type.Optional(
      Nullable(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            `free-form, returned as sent: values may be any JSON (objects, arrays, null); at most ${LIMITS.metadataKeys} top-level keys ` +
            `of 1..${LIMITS.metadataKeyLength} characters, at most ${LIMITS.metadataBytes / 1024} KB as JSON`,
          maxProperties: LIMITS.metadataKeys,
          propertyNames: { minLength: 1, maxLength: LIMITS.metadataKeyLength },
        }),
      ),
    ),
    assign_to: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: "a host's member id: skips routing" }))),
    external_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'unique per organization and mode' }))),
  },
  {
    $id: 'CreateBookingRequest',
    examples: [
      {
        event_type_id: 'et_8d1e4b7a92c3f0a15e6d',
        requested_time: START,
        attendee: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958', timezone: 'Europe/London' },
        custom_fields: { company: 'Analytical Engines Ltd' },
        metadata: { crm_lead_id: 'L-1042' },
        external_id: 'crm-1042',
      },
    ],
  },
);

// PATCH changes attendee details only. Unlike elsewhere, fields it does not name are refused
// rather than ignored, so a client trying to move or re-status a booking through PATCH
// (start_time, status, event_type_id, team_id, api_key_id, ...) learns it did nothing. The
// rules beyond type and length are the domain's, as for the create (validateAttendeePatch);
// x-error-messages words the 400s (src/http/errors.ts).
export const UpdateBookingBody = Type.Object(
  {
    attendee: Type.Object(
      {
        name: Type.Optional(Type.String({ maxLength: LIMITS.nameLength, description: 'not blank' })),
        email: Type.Optional(
          Type.String({
            maxLength: LIMITS.emailLength,
            description: 'an email address, local@domain.tld; a changed email sends a fresh confirmation there',
          }),
        ),
        phone: Type.Optional(Nullable(Type.String({ maxLength: 40, description: `${PHONE_RULE}; null or "" clears it` }))),
        timezone: Type.Optional(
          Nullable(Type.String({ maxLength: 64, description: 'an IANA time zone, e.g. Europe/London; null or "" clears it' })),
        ),
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
    $id: 'UpdateBookingRequest',
    additionalProperties: false,
    description: 'Only `attendee` may be changed: any other field (start_time, status, event_type_id, team_id, api_key_id, ...) is 400',
    'x-error-messages': {
      additionalProperties: 'cannot be changed: PATCH updates attendee details only',
      required: 'is required: nothing to update',
      type: 'must be a JSON object with "attendee"',
    },
    examples: [{ attendee: { email: 'ada.lovelace@example.org', phone: null } }],
  },
);

const Reason = Type.Optional(Nullable(Type.String({ maxLength: LIMITS.reasonLength })));

export const CancelBookingBody = Type.Union([Type.Object({ reason: Reason }), Type.Null()], {
  $id: 'CancelBookingRequest',
  description: 'Optional; `reason` is kept as cancellation_reason.',
  examples: [{ reason: 'The attendee asked to cancel' }],
});

export const RescheduleBookingBody = Type.Object(
  { start_time: Type.String({ format: 'date-time', description: 'a slot start GET /v1/availability lists' }), reason: Reason },
  { $id: 'RescheduleBookingRequest', examples: [{ start_time: '2026-12-02T10:00:00.000Z', reason: 'Clash with another meeting' }] },
);
