import type { FastifySchema, RouteOptions } from 'fastify';
import { ERROR_CODES } from '../domain/errors.ts';
import { EVENT_TYPES } from '../domain/events/record.ts';
import { accessFor } from './access.ts';
import { PARSER_MESSAGES } from './errors.ts';
import { errorResponse } from './schemas/common.ts';
import { WEBHOOK_EVENTS } from './schemas/webhook.ts';

/**
 * The OpenAPI document from one source: route schemas say what each route does; what the
 * global layers (auth and scopes, idempotency, body parsing, rate limits, request ids) add to
 * every route is written here once, so the document cannot forget a route.
 */

const SCHEMES = ['bearer', 'serviceApiKey', 'legacyApiKey'] as const;

type Schema = Record<string, unknown> & {
  hide?: boolean;
  operationId?: string;
  summary?: string;
  description?: string;
  response?: Record<string, unknown>;
  security?: Record<string, string[]>[];
};

/** onRoute: the scope a route needs (decisions §3) and the statuses every such route can answer. */
export function documentRoute(route: RouteOptions): void {
  const schema = route.schema as Schema | undefined;
  const method = [route.method].flat()[0] ?? 'GET';
  const access = accessFor(method, route.url);
  if (!schema || schema.hide || !access) return;
  // every documented operation is named and summarised (generators name functions after operationId)
  if (!schema.operationId || !schema.summary) throw new Error(`route ${method} ${route.url} needs an operationId and a summary`);
  if (access.kind === 'public') return;
  const response: Record<string, unknown> = { ...(schema.response ?? {}) };
  const add = (status: number, value: unknown) => {
    if (response[status] === undefined) response[status] = value;
  };
  let description = schema.description;
  if (access.kind === 'optional') {
    // no key at all, or any valid key
    schema.security = [{}, ...SCHEMES.map((s) => ({ [s]: [] }))];
  } else {
    schema.security = SCHEMES.map((s) => ({ [s]: [access.scope] }));
    const who = access.publishable ? 'secret keys, and publishable keys holding it (from an allowed origin)' : 'secret keys only';
    description = `Scope \`${access.scope}\`: ${who}.${description ? `\n\n${description}` : ''}`;
  }
  add(400, errorResponse('validation_error: a malformed parameter, body or header (`error.field` names it)'));
  if (method === 'POST' || method === 'DELETE') {
    const created = response[201] as Record<string, unknown> | undefined;
    if (created) add(200, { ...created, description: 'a replay of the first answer (Idempotency-Key), with idempotent_replay: true' });
    add(409, errorResponse('conflict: a request with this Idempotency-Key is still being processed'));
    add(422, errorResponse('idempotency_key_reused: the Idempotency-Key was used with another request'));
  }
  if (method === 'POST' || method === 'PATCH' || method === 'DELETE') add(413, errorResponse('payload_too_large: the body is over 256 KB'));
  add(500, errorResponse('internal_error: the message quotes the request id'));
  // answered by Node's HTTP parser before any route runs (docs/edge.md), so for every operation
  add(408, errorResponse('request_timeout: the request was not received in time'));
  add(414, errorResponse('uri_too_long: the request line is over 16 KB'));
  add(431, errorResponse('headers_too_large: the request line and headers are over 16 KB'));
  route.schema = { ...schema, description, response } as FastifySchema;
}

const IDEMPOTENCY_KEY = {
  in: 'header',
  name: 'Idempotency-Key',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description:
    'Makes a retry safe (IETF Idempotency-Key draft). The first successful response is kept 24 h per team ' +
    '(the one the request acts on) and mode: the same key and body replays it with 200 and idempotent_replay: true; ' +
    'another body is 422 idempotency_key_reused; while the first request runs, 409.',
};

const REQUEST_ID = {
  in: 'header',
  name: 'X-Request-Id',
  required: false,
  schema: { type: 'string', pattern: '^[\\x20-\\x7e]{1,128}$' },
  description:
    'Your own id for this request, to trace it: 1 to 128 printable ASCII characters, echoed in the X-Request-Id ' +
    "response header, the logs and a 500's message. Without it, or when it is not such a value, the service makes a UUID v4.",
};

const header = (description: string, type = 'string') => ({ description, schema: { type } });
/** Response headers, defined once under components.headers and referenced by every response. */
const HEADERS = {
  'X-Request-Id': header('the request id: a valid one the client sent, else a new UUID'),
  Vary: header('Origin'),
  'X-RateLimit-Limit': header('requests allowed per minute for this key (on every answer to a valid key)', 'integer'),
  'X-RateLimit-Remaining': header('requests left in the current minute', 'integer'),
  'X-RateLimit-Reset': header('Unix time (seconds) when the window resets', 'integer'),
  'Retry-After': header('seconds to wait', 'integer'),
  'Idempotent-Replayed': header('"true" on a replay of a stored answer'),
};
const use = (...names: (keyof typeof HEADERS)[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const ALWAYS = use('X-Request-Id', 'Vary');
const RATE = use('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');

type Media = { schema?: Json; example?: unknown; examples?: unknown };
type Json = Record<string, unknown>;
type Operation = {
  parameters?: { in: string; required?: boolean; schema?: Json }[];
  requestBody?: { required?: boolean; content?: Record<string, Media> };
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, Media> }>;
  security?: unknown[];
};
type Document = {
  paths?: object;
  components?: { schemas?: Record<string, Json>; headers?: Json; parameters?: Json };
  webhooks?: Record<string, unknown>;
};

/** transformObject: what belongs to every operation (headers, examples) and the webhooks section. */
export function finishDocument<T extends object>(input: T): T {
  const doc = input as Document;
  const schemas = doc.components?.schemas ?? {};
  doc.components = { ...doc.components, headers: HEADERS, parameters: { IdempotencyKey: IDEMPOTENCY_KEY, RequestId: REQUEST_ID } };
  for (const item of Object.values(doc.paths ?? {}) as Record<string, Operation | undefined>[]) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const keyed = Array.isArray(op.security) && op.security.length > 0;
      // a query parameter with a default may be left out
      for (const p of op.parameters ?? []) if (p.in === 'query' && p.schema?.default !== undefined) p.required = false;
      op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/RequestId' } as never];
      if (method === 'post' || method === 'delete') {
        op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' } as never];
        if (method === 'delete' && op.requestBody) op.requestBody.required = false;
      }
      for (const media of Object.values(op.requestBody?.content ?? {})) addExample(media, () => exampleOf(media.schema, schemas));
      for (const [status, res] of Object.entries(op.responses)) {
        // the rate-limit headers come with answers to a valid key, so never with a 401
        res.headers = { ...ALWAYS, ...(keyed && status !== '401' ? RATE : {}), ...(res.headers ?? {}) };
        if (status === '429') Object.assign(res.headers, use('Retry-After'));
        const replayable = status === '200' && (method === 'post' || method === 'delete');
        if (replayable) Object.assign(res.headers, use('Idempotent-Replayed'));
        for (const media of Object.values(res.content ?? {})) {
          addExample(media, () => {
            if (Number(status) >= 400 && isError(media.schema)) return errorExample(Number(status), res.description);
            const example = exampleOf(media.schema, schemas);
            // a create's 200 is the replay of its 201: show the flag a replay carries
            const replay = replayable && op.responses!['201'] && hasProperty(media.schema, 'idempotent_replay', schemas);
            return replay ? { ...(example as Json), idempotent_replay: true } : example;
          });
        }
      }
    }
  }
  doc.webhooks = webhooksSection(schemas);
  return input;
}

function addExample(media: Media, make: () => unknown): void {
  if (media.example === undefined && media.examples === undefined) media.example = make();
}

const isError = (schema: Json | undefined) => schema?.$ref === '#/components/schemas/Error';

function hasProperty(schema: Json | undefined, name: string, components: Record<string, Json>): boolean {
  const resolved = typeof schema?.$ref === 'string' ? components[schema.$ref.replace('#/components/schemas/', '')] : schema;
  return Boolean((resolved?.properties as Json | undefined)?.[name]);
}

/** Fallbacks for leaves without an example of their own; the document test finds none left. */
export const PLACEHOLDER = 'string';
const BY_FORMAT: Record<string, string> = {
  'date-time': '2026-12-01T09:00:00.000Z',
  date: '2026-12-01',
  uuid: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  email: 'ada@example.com',
};

/**
 * An example built from the schema: a named schema gives its own `examples[0]` (written by hand
 * next to it in src/http/schemas), an envelope is assembled from its parts, so that the reference
 * page and generated mocks show real-looking values instead of "string".
 */
export function exampleOf(schema: Json | undefined, components: Record<string, Json>, depth = 0): unknown {
  if (!schema || depth > 12) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (typeof schema.$ref === 'string') {
    return exampleOf(components[schema.$ref.replace('#/components/schemas/', '')], components, depth + 1);
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branches) {
    // a nullable leaf without an example of its own shows null
    const value = exampleOf(branches.find((b) => b.type !== 'null') ?? branches[0], components, depth + 1);
    return value === PLACEHOLDER && branches.some((b) => b.type === 'null') ? null : value;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const out: Json = {};
      for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        if (required.has(name)) out[name] = exampleOf(sub, components, depth + 1);
      }
      return out;
    }
    case 'array':
      return [exampleOf(schema.items as Json | undefined, components, depth + 1)];
    case 'integer':
    case 'number':
      return schema.default ?? schema.minimum ?? 1;
    case 'boolean':
      return schema.default ?? true;
    case 'null':
      return null;
    default:
      return schema.default ?? BY_FORMAT[schema.format as string] ?? PLACEHOLDER;
  }
}

const ERROR_EXAMPLES: Record<number, { type: string; code: string; message: string; field?: string }> = {
  400: { type: 'invalid_request_error', code: 'validation_error', message: 'query parameter "limit" must be <= 100', field: 'limit' },
  401: { type: 'authentication_error', code: 'unauthorized', message: 'missing API key: send Authorization: Bearer <key>' },
  403: { type: 'permission_error', code: 'forbidden', message: 'this key does not hold the scope this request needs' },
  404: { type: 'not_found_error', code: 'not_found', message: 'booking bkg_5f0c2a9e41d7b3a08c6e1f24 not found' },
  408: { type: 'invalid_request_error', code: 'request_timeout', message: PARSER_MESSAGES[408] },
  409: { type: 'conflict_error', code: 'conflict', message: 'the requested time is no longer available' },
  413: { type: 'invalid_request_error', code: 'payload_too_large', message: 'request body exceeds the 256 KB limit' },
  414: { type: 'invalid_request_error', code: 'uri_too_long', message: PARSER_MESSAGES[414] },
  422: { type: 'precondition_error', code: 'precondition_failed', message: 'the operation is not allowed in the current state' },
  429: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'rate limit exceeded; retry after 12 seconds' },
  431: { type: 'invalid_request_error', code: 'headers_too_large', message: PARSER_MESSAGES[431] },
  500: {
    type: 'api_error',
    code: 'internal_error',
    message: 'An unexpected error occurred; quote request id 0f8fad5b-d9cb-469f-a165-70867728950e when reporting it',
  },
};

/** The error of a documented status; a 422 whose description starts with a code shows that code. */
function errorExample(status: number, description = ''): unknown {
  const base = ERROR_EXAMPLES[status] ?? ERROR_EXAMPLES[500]!;
  const named = ERROR_CODES.find((c) => description.startsWith(`${c}:`));
  const error = status === 422 && named ? { ...base, code: named, message: description.slice(named.length + 1).trim() } : { ...base };
  if (status === 500) return { success: false, error: { ...error, request_id: '0f8fad5b-d9cb-469f-a165-70867728950e' } };
  return { success: false, error };
}

const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    description: 'the message id: the same on every retry of this event to this webhook (deduplicate on it)',
    example: 'msg_5e6f708192a3b4c5d6e7f809',
  },
  { name: 'webhook-timestamp', description: 'Unix time (seconds) of this attempt; refuse one far from your clock', example: '1795615392' },
  {
    name: 'webhook-signature',
    description: '`v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the secret (Standard Webhooks)',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
].map(({ name, description, example }) => ({ in: 'header', name, required: true, description, schema: { type: 'string' }, example }));

/** OAS 3.1 `webhooks`: what a delivery POSTs to a subscription's URL, one entry per event name. */
function webhooksSection(components: Record<string, Json>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of EVENT_TYPES) {
    const id = WEBHOOK_EVENTS[name]!.$id;
    const schema = { $ref: `#/components/schemas/${id}` };
    out[name] = {
      post: {
        operationId: `on${id}`,
        tags: ['webhooks'],
        summary: `${name} delivery`,
        description:
          `${String(components[id]?.description ?? '')} Sent to every active webhook subscribed to ${name}, ` +
          'signed with its secret (see Webhook signatures above).',
        parameters: SIGNATURE_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema, example: exampleOf(schema, components) } } },
        responses: {
          '2XX': { description: 'any 2xx within 5 seconds acknowledges the delivery' },
          '4XX': { description: 'the delivery failed: it is retried (1, 5, 25, 125, 625 s by default)' },
          '5XX': { description: 'the delivery failed: it is retried; 10 failed attempts in a row disable the webhook' },
        },
      },
    };
  }
  return out;
}

/** The guide at the top of the reference: what an integrator needs before the first request. */
const GUIDE = `Find free slots, book meetings with the right team member, and hear about every change through signed webhooks.

## Keys and scopes
Send an API key as \`Authorization: Bearer <key>\` (\`Service-Api-Key: <key>\` and the legacy \`X-API-Key: <key>\` work too).
**Secret keys** (\`sk_live_...\`, \`sk_test_...\`) belong on your server. **Publishable keys** (\`pk_live_...\`, \`pk_test_...\`) may
run in a browser: they can hold only \`bookings:create\`, \`event-types:read\` and \`team:read\`, and a key with allowed origins
answers only requests from those origins (403 otherwise). Each operation below names the scope it needs. A missing or unknown
key is 401 \`unauthorized\`; a key without the scope is 403 \`forbidden\`. Another organization's objects are always 404.

## Test and live mode
\`_test_\` keys work on test-mode bookings, webhooks and deliveries, which live keys never see (and the reverse); test bookings
never block live availability. Event types, teams, members and calendars are shared. Objects carry \`livemode\`.

## Idempotency
Send \`Idempotency-Key: <unique string, up to 255 characters>\` on any POST or DELETE to make a retry safe. The first successful
answer is kept 24 hours per team and mode: the same key with the same body replays it (status 200, \`idempotent_replay: true\`,
header \`Idempotent-Replayed: true\`); the same key with another body is 422 \`idempotency_key_reused\`; while the first request is
still running, 409. Failed requests are not stored, so a retry after an error runs again.

## Errors
Every error is \`{"success": false, "error": {"type", "code", "message"}}\`: branch on \`code\` (the \`ErrorCode\` schema lists
every value), show \`message\` to people. A \`validation_error\` names the offending input in \`error.field\`. Every answer carries
\`X-Request-Id\` (send your own, 1 to 128 printable characters, to trace a request); a 500 quotes it.

## Pagination
Bookings page with a cursor: pass \`pagination.next_cursor\` as \`cursor\` while \`pagination.has_more\` is true. Team members and
webhook deliveries page with \`limit\` and \`offset\` (\`pagination: {total, limit, offset, has_more}\`); calendars the same in
camelCase (\`hasMore\`).

## Rate limits
Per key and minute: 1,000 requests for live keys, 100 for test keys. Every keyed answer carries \`X-RateLimit-Limit\`,
\`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds); over the limit the answer is 429 \`rate_limit_exceeded\` with
\`Retry-After\` in seconds.

## Webhook signatures
Deliveries follow [Standard Webhooks](https://www.standardwebhooks.com/): headers \`webhook-id\`, \`webhook-timestamp\` and
\`webhook-signature\` (\`v1,\` + base64 HMAC-SHA256 of \`{id}.{timestamp}.{body}\` under the secret). The secret
(\`whsec_...\`) is shown once, when the webhook is created or its secret rotated. Verify the raw body before parsing it, e.g.
with the \`standardwebhooks\` npm package: \`new Webhook(secret).verify(body, headers)\`. Retries of one event reuse its
\`webhook-id\`: deduplicate on it. Each event's payload is under **Webhooks** below.`;

export const INFO = {
  title: 'Booking Scheduling Service API',
  version: '1.0.0',
  summary: 'Slots, bookings, team members and signed webhooks',
  description: GUIDE,
  contact: { name: 'Booking Service API support' },
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
};

export const TAGS = [
  { name: 'bookings', description: 'Create, read, list, update, reschedule, confirm, complete, mark no-show and cancel bookings.' },
  { name: 'event types', description: 'The rules of a bookable meeting: length, buffers, notice, hosts and the booking form.' },
  { name: 'availability', description: "Bookable slots of an event type, and a user's free and busy blocks." },
  { name: 'team members', description: 'The people who host bookings, and who is free on a date.' },
  { name: 'calendars', description: 'Calendar integrations of team members (read-only metadata, never credentials).' },
  { name: 'webhooks', description: 'Subscriptions to booking events, their delivery history, and the payloads they receive.' },
  { name: 'operations', description: 'Liveness and readiness probes for load balancers and orchestrators.' },
];
