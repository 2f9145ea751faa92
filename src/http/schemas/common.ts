import { Type } from 'typebox';
import type { Static, TSchema } from 'typebox';
import { ERROR_CODES, ERROR_TYPES } from '../../domain/errors.ts';

/**
 * Named schemas. A schema given an `$id` here is registered once with `app.addSchema`
 * (src/http/schemas/components.ts) and used in route schemas through `ref()`: Ajv and the
 * serializer resolve the `$ref`, and @fastify/swagger turns it into
 * `#/components/schemas/<$id>`, so the document's components are the route schemas themselves.
 */
export type Named<T extends TSchema = TSchema> = T & { $id: string };

/** A route schema's reference to a named schema, typed as the schema it names. */
export function ref<T extends TSchema>(schema: T, options: { description?: string } = {}) {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>({ $ref: id, ...options });
}

/** A string enumeration (`{type: string, enum}`), typed as the union of its values. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const DateTime = Type.String({ format: 'date-time' });
export const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

export const ErrorType = StringEnum(ERROR_TYPES, {
  $id: 'ErrorType',
  description: 'The class of error, one per HTTP status (400 and 413 share `invalid_request_error`).',
});

export const ErrorCode = StringEnum(ERROR_CODES, {
  $id: 'ErrorCode',
  description:
    'What went wrong, for programs to branch on: `validation_error` (400), `unauthorized` (401), `forbidden` (403), ' +
    '`not_found` (404), `conflict` (409), `payload_too_large` (413), `request_timeout` (408), `uri_too_long` (414), ' +
    '`headers_too_large` (431), `precondition_failed`, `cancellation_disabled`, ' +
    '`cancellation_cutoff_passed`, `terminal_state`, `idempotency_key_reused` (422), `rate_limit_exceeded` (429), ' +
    '`internal_error` (500).',
});

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      type: ref(ErrorType),
      code: ref(ErrorCode),
      message: Type.String({ description: 'for people: names the offending field of a validation error' }),
      field: Type.Optional(Type.String({ description: 'the offending field, parameter or header of a `validation_error`' })),
      request_id: Type.Optional(Type.String({ description: 'on `internal_error`: the request id to quote when reporting it' })),
    }),
  },
  {
    $id: 'Error',
    description: 'Every error answer: `success: false` and an `error` object.',
    examples: [
      {
        success: false,
        error: {
          type: 'invalid_request_error',
          code: 'validation_error',
          message: 'field "attendee.email" must be an email address',
          field: 'attendee.email',
        },
      },
    ],
  },
);

/** The error envelope as one documented response. */
export const errorResponse = (description: string) => ref(ErrorEnvelope, { description });

/** The error responses a keyed route can give, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const text: Record<number, string> = {
    400: 'validation_error: a malformed parameter, body or header (`error.field` names it)',
    401: 'unauthorized: the API key is missing or invalid',
    403: 'forbidden: the key lacks the scope, or the Origin is not among its allowed origins',
    404: 'not_found: no such object in this organization (and mode)',
    409: 'conflict: the slot is taken, the state does not allow it, or the request races another',
    413: 'payload_too_large: the body is over 256 KB',
    422: 'a policy or state blocks the operation (`error.code` says which)',
    429: 'rate_limit_exceeded: wait `Retry-After` seconds',
  };
  const out: Record<number, TSchema> = {};
  for (const s of [401, 403, 429, ...statuses]) out[s] = errorResponse(text[s] ?? 'error');
  return out;
}

export const CursorPagination = Type.Object(
  {
    next_cursor: Nullable(Type.String({ description: 'pass as `cursor` to read the next page' })),
    has_more: Type.Boolean(),
  },
  {
    $id: 'CursorPagination',
    description: 'Cursor pages (bookings).',
    examples: [{ next_cursor: 'eyJ0IjoiMjAyNi0xMi0wMVQwOTowMDowMFoifQ', has_more: true }],
  },
);

export const OffsetPagination = Type.Object(
  {
    total: Type.Integer({ description: 'matching objects in all' }),
    limit: Type.Integer(),
    offset: Type.Integer(),
    has_more: Type.Boolean(),
  },
  {
    $id: 'OffsetPagination',
    description: 'Offset pages (team members, deliveries).',
    examples: [{ total: 12, limit: 50, offset: 0, has_more: false }],
  },
);

export const CalendarPagination = Type.Object(
  { total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(), hasMore: Type.Boolean() },
  {
    $id: 'CalendarPagination',
    description: 'Offset pages of calendars, in camelCase like the calendar resource.',
    examples: [{ total: 3, limit: 50, offset: 0, hasMore: false }],
  },
);

// Successful bodies carry success: true like every other answer (api-spec intro).
export const Health = Type.Object(
  { success: Type.Boolean(), status: Type.String({ description: '`ok`, `ready`, or what is wrong' }) },
  { $id: 'Health', description: "A probe's answer.", examples: [{ success: true, status: 'ok' }] },
);
export const Readiness = Type.Object(
  {
    success: Type.Boolean(),
    status: Type.String({ description: '`ready`, or what is wrong' }),
    redis: Type.Optional(
      StringEnum(['ok', 'degraded'] as const, {
        description:
          'With REDIS_URL: `degraded` while Redis is unreachable (rate limits count per process, caches are local); the process stays ready',
      }),
    ),
  },
  { $id: 'Readiness', description: "The readiness probe's answer.", examples: [{ success: true, status: 'ready', redis: 'ok' }] },
);
