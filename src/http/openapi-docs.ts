import type { FastifySchema, RouteOptions } from 'fastify';
import { accessFor } from './access.ts';
import { errorResponse } from './schemas/common.ts';

/**
 * The OpenAPI document from one source: route schemas say what each route does; what the
 * global layers (auth and scopes, idempotency, body parsing, rate limits, request ids) add to
 * every route is written here once, so the document cannot forget a route.
 */

const SCHEMES = ['bearer', 'serviceApiKey', 'legacyApiKey'] as const;

type Schema = Record<string, unknown> & {
  hide?: boolean;
  description?: string;
  response?: Record<string, unknown>;
  security?: Record<string, string[]>[];
};

/** onRoute: the scope a route needs (decisions §3) and the statuses every such route can answer. */
export function documentRoute(route: RouteOptions): void {
  const schema = route.schema as Schema | undefined;
  const method = [route.method].flat()[0] ?? 'GET';
  const access = accessFor(method, route.url);
  if (!schema || schema.hide || !access || access.kind === 'public') return;
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
  add(400, errorResponse('validation_error: a malformed parameter, body or header'));
  if (method === 'POST' || method === 'DELETE') {
    const created = response[201] as Record<string, unknown> | undefined;
    if (created) add(200, { ...created, description: 'a replay of the first answer (Idempotency-Key), with idempotent_replay: true' });
    add(409, errorResponse('conflict: a request with this Idempotency-Key is still being processed'));
    add(422, errorResponse('idempotency_key_reused: the Idempotency-Key was used with another request'));
    add(413, errorResponse('payload_too_large'));
  }
  add(500, errorResponse('internal_error (the body quotes the request id)'));
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

const header = (description: string, type = 'string') => ({ description, schema: { type } });
const ALWAYS = { 'X-Request-Id': header('the request id: a valid one the client sent, else a new UUID'), Vary: header('Origin') };
const RATE = {
  'X-RateLimit-Limit': header('requests allowed per minute for this key', 'integer'),
  'X-RateLimit-Remaining': header('requests left in the current minute', 'integer'),
  'X-RateLimit-Reset': header('Unix time (seconds) when the window resets', 'integer'),
};

type Operation = {
  parameters?: { in: string; required?: boolean; schema?: Record<string, unknown> }[];
  requestBody?: { required?: boolean };
  responses?: Record<string, { headers?: Record<string, unknown> }>;
  security?: unknown[];
};

/** transformObject: header documentation that belongs to every operation. */
export function finishDocument<T extends { paths?: object }>(doc: T): T {
  for (const item of Object.values(doc.paths ?? {}) as Record<string, Operation | undefined>[]) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const keyed = Array.isArray(op.security) && op.security.length > 0;
      // a query parameter with a default may be left out
      for (const p of op.parameters ?? []) if (p.in === 'query' && p.schema?.default !== undefined) p.required = false;
      if (method === 'post' || method === 'delete') {
        op.parameters = [...(op.parameters ?? []), IDEMPOTENCY_KEY];
        if (method === 'delete' && op.requestBody) op.requestBody.required = false;
      }
      for (const [status, res] of Object.entries(op.responses)) {
        res.headers = { ...ALWAYS, ...(keyed ? RATE : {}), ...(res.headers ?? {}) };
        if (status === '429') res.headers['Retry-After'] = header('seconds to wait', 'integer');
        if (status === '200' && (method === 'post' || method === 'delete')) {
          res.headers['Idempotent-Replayed'] = header('"true" on a replay of a stored answer');
        }
      }
    }
  }
  return doc;
}
