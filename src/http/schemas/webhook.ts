import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ValidationError } from '../../domain/errors.ts';
import { EVENT_TYPES } from '../../domain/events/record.ts';
import { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT } from '../../domain/webhooks/history.ts';
import { BROADCAST_EVENTS } from '../../domain/events/record.ts';
import { Booking } from './booking.ts';
import type { Named } from './common.ts';
import { DateTime, Nullable, OffsetPagination, StringEnum, ref } from './common.ts';

// Null first: with coerceTypes, Ajv would turn a null into "" if the string branch came first.
const NullOrString = (opts: Parameters<typeof Type.String>[0] = {}) => Type.Union([Type.Null(), Type.String(opts)]);

const FIRES_WHEN: Record<(typeof EVENT_TYPES)[number], string> = {
  BOOKING_CREATED: 'a new booking is created',
  BOOKING_UPDATED: 'attendee details are updated (sent to every active subscription of the organization and mode)',
  BOOKING_CANCELLED: 'a booking is cancelled',
  BOOKING_RESCHEDULED: 'a booking is moved to a new time (`data` is the new booking)',
  BOOKING_COMPLETED: 'a booking is marked completed',
  BOOKING_NO_SHOW: 'a booking is marked no-show',
  ASSIGNMENT_CHANGED: 'the assigned team member changes',
};
export { FIRES_WHEN as WEBHOOK_EVENT_DESCRIPTIONS };

export const WebhookEventName = StringEnum(EVENT_TYPES, {
  $id: 'WebhookEventName',
  description: EVENT_TYPES.map((e) => `\`${e}\`: ${FIRES_WHEN[e]}`).join('; '),
});

const EventName = ref(WebhookEventName);

const WEBHOOK_EXAMPLE = {
  id: 'wh_2b7e151628aed2a6abf71588',
  url: 'https://hooks.example.com/booking-events',
  events: ['BOOKING_CREATED', 'BOOKING_CANCELLED', 'BOOKING_RESCHEDULED'],
  description: 'CRM sync',
  is_active: true,
  failure_reason: null,
  rotated_at: null,
  livemode: false,
  created_at: '2026-11-20T10:00:00.000Z',
  updated_at: '2026-11-20T10:00:00.000Z',
};

export const Webhook = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(ref(WebhookEventName), { description: `${[...BROADCAST_EVENTS].join(', ')} is sent whether listed or not` }),
    description: Nullable(Type.String()),
    is_active: Type.Boolean(),
    failure_reason: Nullable(Type.String({ description: 'why the webhook was disabled automatically' })),
    rotated_at: Nullable(DateTime),
    livemode: Type.Boolean(),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Webhook', description: 'A subscription: where to send which events.', examples: [WEBHOOK_EXAMPLE] },
);

const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0Lhb0E0v6kA=';

export const WebhookWithSecret = Type.Object(
  {
    ...Webhook.properties,
    secret: Type.String({ description: 'whsec_ + base64 of 32 random bytes; shown only here and on rotation' }),
  },
  {
    $id: 'WebhookWithSecret',
    description: 'A new subscription, with its signing secret (shown once).',
    examples: [{ ...WEBHOOK_EXAMPLE, secret: SECRET_EXAMPLE }],
  },
);

const DESCRIPTION = 'at most 500 characters';

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, description: 'https URL of a publicly reachable endpoint' }),
    events: Type.Array(EventName, { minItems: 1, maxItems: 50 }),
    description: Type.Optional(NullOrString({ description: DESCRIPTION })),
  },
  {
    $id: 'CreateWebhookRequest',
    examples: [{ url: WEBHOOK_EXAMPLE.url, events: WEBHOOK_EXAMPLE.events, description: 'CRM sync' }],
  },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, description: 'https URL of a publicly reachable endpoint' })),
    events: Type.Optional(Type.Array(EventName, { minItems: 1, maxItems: 50 })),
    description: Type.Optional(NullOrString({ description: DESCRIPTION })),
    is_active: Type.Optional(
      Type.Boolean({
        description: 'true re-enables (the URL rules apply again, to the stored URL too) and clears failure_reason and the failure count',
      }),
    ),
  },
  { $id: 'UpdateWebhookRequest', description: 'at least one of url, events, description, is_active', examples: [{ is_active: true }] },
);

export const Delivery = Type.Object(
  {
    id: Type.String(),
    webhook_id: Type.String(),
    event: ref(WebhookEventName),
    event_id: Type.String(),
    message_id: Type.String({ description: 'the webhook-id header: the same on every attempt of one event' }),
    attempt: Type.Integer(),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('pending')]),
    response_status: Nullable(Type.Integer()),
    duration_ms: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    created_at: DateTime,
    next_attempt_at: Nullable({ ...DateTime, description: 'when a failed attempt is retried; null when none is due' }),
  },
  {
    $id: 'WebhookDelivery',
    description: 'One delivery attempt of one event to one webhook.',
    examples: [
      {
        id: 'whd_9c4f3e2d1b0a8f7e6d5c4b3a',
        webhook_id: WEBHOOK_EXAMPLE.id,
        event: 'BOOKING_CREATED',
        event_id: 'evt_0a1b2c3d4e5f60718293a4b5',
        message_id: 'msg_5e6f708192a3b4c5d6e7f809',
        attempt: 1,
        status: 'succeeded',
        response_status: 200,
        duration_ms: 84,
        error: null,
        created_at: '2026-11-20T14:03:13.000Z',
        next_attempt_at: null,
      },
    ],
  },
);

export const DeliveryPage = Type.Object(
  {
    success: Type.Literal(true),
    deliveries: Type.Array(ref(Delivery)),
    pagination: ref(OffsetPagination),
  },
  { $id: 'WebhookDeliveryList', description: 'A page of delivery attempts, newest first.' },
);

export const DeliveriesQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: MAX_HISTORY_LIMIT, default: DEFAULT_HISTORY_LIMIT }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  success: Type.Optional(Type.Boolean()),
  // An enum (not a union of literals) so a bad value reads "one of the allowed values", not "constant".
  event_type: Type.Optional(Type.String({ enum: [...EVENT_TYPES], description: 'only attempts of this event' })),
});

export const Stats = Type.Object(
  {
    webhook_id: Type.String(),
    total_attempts: Type.Integer(),
    succeeded: Type.Integer(),
    failed: Type.Integer(),
    pending: Type.Integer(),
    success_rate: Nullable(Type.Number({ description: 'succeeded / (succeeded + failed), 0..1' })),
    last_success_at: Nullable(DateTime),
    last_failure_at: Nullable(DateTime),
    consecutive_failures: Type.Integer({ description: 'failed attempts in a row; 10 disable the webhook' }),
    is_active: Type.Boolean(),
  },
  {
    $id: 'WebhookStats',
    examples: [
      {
        webhook_id: WEBHOOK_EXAMPLE.id,
        total_attempts: 120,
        succeeded: 118,
        failed: 2,
        pending: 0,
        success_rate: 0.9833,
        last_success_at: '2026-11-25T06:59:00.000Z',
        last_failure_at: '2026-11-24T22:10:00.000Z',
        consecutive_failures: 0,
        is_active: true,
      },
    ],
  },
);

/**
 * What a delivery POSTs to the webhook URL, one schema per event name (decisions §4a, §5):
 * `data` is the booking as GET /v1/bookings/{id} returns it after the change.
 */
export const WEBHOOK_EVENTS: Record<string, Named> = Object.fromEntries(
  EVENT_TYPES.map((name) => {
    const id = `${name.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase())}Event`;
    const schema = Type.Object(
      {
        event: Type.Literal(name),
        timestamp: Type.String({ format: 'date-time', description: 'when the change happened' }),
        webhook_id: Type.String({ description: 'the subscription this delivery is for' }),
        test: Type.Optional(Type.Literal(true, { description: 'present on POST /v1/webhooks/{id}/test deliveries (sample data)' })),
        data: ref(Booking),
      },
      {
        $id: id,
        description: `Sent when ${FIRES_WHEN[name]}.`,
        examples: [
          {
            event: name,
            timestamp: '2026-11-20T14:03:12.000Z',
            webhook_id: WEBHOOK_EXAMPLE.id,
            data: {
              ...(Booking as unknown as { examples: object[] }).examples[0],
              // a new booking is a DRAFT that routing has not assigned yet
              ...(name === 'BOOKING_CREATED' ? { status: 'DRAFT', assigned_to_id: null, host_ids: [] } : {}),
            },
          },
        ],
      },
    );
    return [name, schema as unknown as Named];
  }),
);

interface Issue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function describe(issues: Issue[]): ValidationError {
  const first = issues.find((i) => i.keyword === 'anyOf') ?? issues[0]!;
  const segments = first.instancePath.split('/').filter(Boolean);
  // The field is the property sent (events), the message points at the entry (events[0]).
  const field = segments.filter((p) => !/^\d+$/.test(p)).join('.') || 'body';
  const shown = segments.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '') || 'body';
  if (first.keyword === 'required') {
    const missing = (first.params.requiredProperties as string[] | undefined)?.[0] ?? field;
    return new ValidationError(`field "${missing}" is required`, missing);
  }
  if (first.keyword === 'enum') {
    const allowed = (first.params.allowedValues as unknown[] | undefined) ?? [];
    return new ValidationError(`field "${shown}" must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`, field);
  }
  if (first.keyword === 'anyOf') {
    const types = issues.filter((i) => i.instancePath === first.instancePath && i.keyword === 'type').map((i) => String(i.params.type));
    return new ValidationError(`field "${shown}" must be ${types.join(' or ') || 'valid'}`, field);
  }
  return new ValidationError(`field "${shown}" ${first.message}`, field);
}

/**
 * A preValidation hook that checks the body as sent, before Ajv runs. The server's Ajv coerces
 * types (the query string needs it), which would store `description: 5` as "5", `is_active: 1`
 * as true and `events: "X"` as ["X"]; a JSON body has real types, so a wrong one is a 400.
 */
export function strictBody(schema: TSchema) {
  const check = Compile({ WebhookEventName }, schema);
  return async (req: { body: unknown }): Promise<void> => {
    const body = req.body ?? null;
    if (!check.Check(body)) throw describe([...check.Errors(body)] as Issue[]);
  };
}
