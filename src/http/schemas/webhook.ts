import { Type } from 'typebox';
import { EVENT_TYPES } from '../../domain/events/record.ts';
import { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT } from '../../domain/webhooks/history.ts';
import { DateTime, Nullable } from './common.ts';

// Null first: with coerceTypes, Ajv would turn a null into "" if the string branch came first.
const NullOrString = (opts: Parameters<typeof Type.String>[0] = {}) => Type.Union([Type.Null(), Type.String(opts)]);

// Names are checked in the use case too, so the message can say which entry is unknown.
const EventName = Type.String({ minLength: 1, maxLength: 64, description: `one of ${EVENT_TYPES.join(', ')}` });

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  is_active: Type.Boolean(),
  failure_reason: Nullable(Type.String({ description: 'why the webhook was disabled automatically' })),
  rotated_at: Nullable(DateTime),
  livemode: Type.Boolean(),
  created_at: DateTime,
  updated_at: DateTime,
});

export const WebhookWithSecret = Type.Object({
  ...Webhook.properties,
  secret: Type.String({ description: 'whsec_ + base64 of 32 random bytes; shown only here and on rotation' }),
});

export const CreateWebhookBody = Type.Object({
  url: Type.String({ minLength: 1, description: 'https URL of a publicly reachable endpoint' }),
  events: Type.Array(EventName, { minItems: 1, maxItems: 50 }),
  description: Type.Optional(NullOrString()),
});

export const UpdateWebhookBody = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1 })),
  events: Type.Optional(Type.Array(EventName, { minItems: 1, maxItems: 50 })),
  description: Type.Optional(NullOrString()),
  is_active: Type.Optional(Type.Boolean({ description: 'true re-enables and clears failure_reason and the failure count' })),
});

export const Delivery = Type.Object({
  id: Type.String(),
  webhook_id: Type.String(),
  event: Type.String(),
  event_id: Type.String(),
  message_id: Type.String({ description: 'the webhook-id header: the same on every attempt of one event' }),
  attempt: Type.Integer(),
  status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('pending')]),
  response_status: Nullable(Type.Integer()),
  duration_ms: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  created_at: DateTime,
  next_attempt_at: Nullable(DateTime),
});

export const DeliveriesQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: MAX_HISTORY_LIMIT, default: DEFAULT_HISTORY_LIMIT }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  success: Type.Optional(Type.Boolean()),
  event_type: Type.Optional(Type.Union(EVENT_TYPES.map((e) => Type.Literal(e)))),
});

export const Stats = Type.Object({
  webhook_id: Type.String(),
  total_attempts: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  pending: Type.Integer(),
  success_rate: Nullable(Type.Number({ description: 'succeeded / (succeeded + failed), 0..1' })),
  last_success_at: Nullable(DateTime),
  last_failure_at: Nullable(DateTime),
  consecutive_failures: Type.Integer(),
  is_active: Type.Boolean(),
});
