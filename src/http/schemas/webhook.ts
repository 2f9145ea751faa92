import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ValidationError } from '../../domain/errors.ts';
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

const DESCRIPTION = 'at most 500 characters';

export const CreateWebhookBody = Type.Object({
  url: Type.String({ minLength: 1, description: 'https URL of a publicly reachable endpoint' }),
  events: Type.Array(EventName, { minItems: 1, maxItems: 50 }),
  description: Type.Optional(NullOrString({ description: DESCRIPTION })),
});

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, description: 'https URL of a publicly reachable endpoint' })),
    events: Type.Optional(Type.Array(EventName, { minItems: 1, maxItems: 50 })),
    description: Type.Optional(NullOrString({ description: DESCRIPTION })),
    is_active: Type.Optional(Type.Boolean({
      description: 'true re-enables (the URL rules apply again, to the stored URL too) and clears failure_reason and the failure count',
    })),
  },
  { description: 'at least one of url, events, description, is_active' },
);

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
  // An enum (not a union of literals) so a bad value reads "one of the allowed values", not "constant".
  event_type: Type.Optional(Type.String({ enum: [...EVENT_TYPES], description: `one of ${EVENT_TYPES.join(', ')}` })),
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

interface Issue { keyword: string; instancePath: string; params: Record<string, unknown>; message: string }

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
  const check = Compile(schema);
  return async (req: { body: unknown }): Promise<void> => {
    const body = req.body ?? null;
    if (!check.Check(body)) throw describe([...check.Errors(body)] as Issue[]);
  };
}
