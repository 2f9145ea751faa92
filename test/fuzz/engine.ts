/**
 * Hostile requests for every operation of the OpenAPI document, and the checks every answer
 * must pass (decisions.md §6): never a 5xx, every 4xx in the error envelope with an
 * X-Request-Id, and a refused request writes nothing. Used by test/http/fuzz.test.ts (a
 * bounded number per operation, in `npm test`) and test/fuzz/run.ts (`npm run fuzz`).
 */
import fc from 'fast-check';
import type { Pool } from '../../src/db/pool.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';

type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
};

export interface Operation {
  method: string;
  /** OpenAPI path, e.g. /v1/bookings/{id} */
  path: string;
  pathParams: string[];
  query: Array<{ name: string; schema: Schema; required: boolean }>;
  body?: Schema;
}

/** Ids the fuzzer mixes into path parameters and bodies so that some requests reach real rows. */
export interface KnownIds {
  bookings: string[];
  webhooks: string[];
  externalIds: string[];
}

export interface FuzzCase {
  method: string;
  /** Path and query as sent, already percent-encoded (hostile encodings on purpose). */
  url: string;
  body?: string;
  headers: Record<string, string>;
}

export interface Violation {
  operation: string;
  request: FuzzCase;
  status: number;
  problem: string;
  response: string;
}

/** Every operation of the document that needs a key (health checks are left out). */
/**
 * The document's schemas with every `$ref` to a named schema replaced by that schema, so the
 * fuzzer sees the shape of a body or parameter that the document names in components.
 */
function dereferencer(doc: { components?: { schemas?: Record<string, unknown> } }): (schema: unknown) => Schema {
  const named = doc.components?.schemas ?? {};
  const prefix = '#/components/schemas/';
  const resolve = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return node.map((n) => resolve(n, depth));
    if (!node || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith(prefix)) return depth > 20 ? {} : resolve(named[ref.slice(prefix.length)], depth + 1);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'examples' || k === 'example' ? v : resolve(v, depth)]));
  };
  return (schema) => resolve(schema, 0) as Schema;
}

type Document = { paths: Record<string, Record<string, unknown>>; components?: { schemas?: Record<string, unknown> } };

export function operationsOf(doc: Document): Operation[] {
  const deref = dereferencer(doc);
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as {
        parameters?: Array<{ in: string; name: string; schema: Schema; required?: boolean }>;
        requestBody?: { content?: Record<string, { schema: Schema }> };
      };
      const params = op.parameters ?? [];
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: deref(p.schema ?? {}), required: p.required === true })),
        body: op.requestBody?.content?.['application/json'] ? deref(op.requestBody.content['application/json'].schema) : undefined,
      });
    }
  }
  // Deletions last, so that they do not take away the rows the other operations aim at.
  return ops.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

// ---------------------------------------------------------------- hostile values

const NESTED = (depth: number) => JSON.parse(`${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`);

const NASTY_STRINGS = [
  '',
  ' ',
  '\t\n',
  'a\u0000b',
  '\u0000',
  'a\ud800',
  '\udc00z',
  '\ud800\ud800',
  'ok\ud83d\ude00',
  '\u202eevil',
  '\ufeff',
  '2026-11-31T00:00:00Z',
  '2026-02-30',
  '2026-12-01 10:00:00Z',
  '2026-12-01T10:00:00',
  '2026-12-01T24:00:00Z',
  '0000-00-00',
  '9999-99-99T99:99:99Z',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  'yesterday',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  "' or 1=1 --",
  '"; drop table bookings; --',
  '../../../etc/passwd',
  '%00',
  '%FF',
  '\\u0000',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'null',
  'true',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '00000000-0000-0000-0000-000000000000',
  'x'.repeat(256),
  'x'.repeat(5_000),
  'é'.repeat(20_000),
];

const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`) },
);

const nastyNumber = fc.constantFrom(-1, 0, 0.5, 1.5, -0, 1e308, -1e308, 2 ** 53 + 1, 1e-300, 86_400_000_000);

const nastyKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'a\u0000',
  'k\ud800',
  '',
  'x'.repeat(41),
  'id',
  'status',
);

/** Deep nesting, prototype keys and odd scalars, as parsed JSON. */
const nastyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    nastyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(NESTED(40), NESTED(10), [[[[[[]]]]]]),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(nastyKey, fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 3 }),
  ),
})).value;

// ---------------------------------------------------------------- values shaped like the schema

const SLOT_TIMES = ['2026-12-02T10:00:00Z', '2026-12-02T10:15:00Z', '2026-12-03T14:00:00Z', '2026-12-08T09:00:00Z', '2026-11-30T10:00:00Z'];

/** Plausible values by field name (good ones, then wrong ones), so that some requests get past validation into the rules. */
function hints(name: string, ids: KnownIds): [unknown[], unknown[]] | undefined {
  switch (name) {
    case 'event_type_id':
      return [['et_intro_call'], ['et_onboarding', 'et_globex_demo', 'et_missing']];
    case 'team_id':
    case 'teamId':
      return [
        ['team_advisors', 'team_support'],
        ['team_globex', 'team_missing'],
      ];
    case 'assign_to':
    case 'assigned_to_id':
    case 'userId':
      return [
        [MEMBERS.amara, MEMBERS.jonas],
        [MEMBERS.otherOrg, '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1bff'],
      ];
    case 'requested_time':
    case 'start_time':
    case 'start':
      return [
        SLOT_TIMES.slice(0, 4),
        ['2026-11-30T10:00:00Z', '2026-11-31T10:00:00Z', '2026-12-02T10:07:00Z', '9999-12-30T10:00:00Z', '9998-12-31T23:00:00-05:00'],
      ];
    case 'end':
      return [['2026-12-09T10:00:00Z'], ['2026-11-31T10:00:00Z', '2027-03-01T00:00:00Z']];
    case 'start_date':
    case 'end_date':
    case 'date':
      return [
        ['2026-12-02', '2026-12-03'],
        ['2026-11-31', '2026-02-29', '2026-12-02T00:00:00Z', '9999-12-31', '0000-01-01'],
      ];
    case 'phone':
      return [
        ['+44 20 7946 0958', null],
        ['abc', '+1'],
      ];
    case 'timezone':
      return [
        ['Europe/London', 'America/New_York', 'UTC', 'europe/london'],
        ['Mars/Olympus', '+01:00'],
      ];
    case 'email':
    case 'attendee_email':
      return [
        ['ada@example.com', 'a@b.co', 'zoë@bücher.example'],
        ['not-an-email', 'a@x..example', 'a@[127.0.0.1]'],
      ];
    case 'url':
      return [['https://127.0.0.1:9/hook'], ['http://127.0.0.1:9/hook', 'https://10.0.0.1/x', 'ftp://x', 'https://[::1]/']];
    case 'events':
      return [
        [['BOOKING_CREATED'], ['BOOKING_CANCELLED', 'BOOKING_RESCHEDULED']],
        [[], ['BOOKING_EXPLODED']],
      ];
    case 'external_id':
    case 'externalId':
      return [[...ids.externalIds, 'ext-new'], []];
    case 'cursor':
      return [[], ['eyJhIjoxfQ.AAAAAAAAAAAAAAAA', 'x']];
    case 'slug':
      return [['fuzz-call', 'intro-call'], ['Not A Slug']];
    case 'custom_fields':
      return [
        [{ company: 'Engines' }, { company: 'Engines', topic: 'pensions' }],
        [{}, { company: 7 }],
      ];
    default:
      return undefined;
  }
}

function hint(name: string, ids: KnownIds, h: Hostility): fc.Arbitrary<unknown> | undefined {
  const found = hints(name, ids);
  if (!found) return undefined;
  const [good, bad] = found;
  if (good.length === 0) return fc.constantFrom(...bad);
  if (h === 0 || bad.length === 0) return fc.constantFrom(...good);
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
}

/** How often a field is replaced by a hostile value: never (a request that may pass), or one field in `n`. */
type Hostility = 0 | number;

function shaped(schema: Schema, ids: KnownIds, name: string, depth: number, h: Hostility): fc.Arbitrary<unknown> {
  // A hint stands for the field of that name where it is a scalar or, for custom_fields, the booking's object.
  const hinted = schema.type === 'array' && name !== 'events' ? undefined : hint(name, ids, h);
  if (hinted) return hinted;
  if (name === 'metadata') {
    return fc.oneof(
      fc.constant({ crm: 'A-1' }),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
    );
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => shaped(b, ids, name, depth, h)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'date-time') return fc.constantFrom(...SLOT_TIMES);
      if (schema.format === 'date') return fc.constantFrom('2026-12-02', '2026-12-31');
      if (schema.format === 'uuid')
        return fc.constantFrom(MEMBERS.amara, MEMBERS.jonas, MEMBERS.priya, '5c3f1e2a-0b7d-4c1e-9a2b-3d4e5f607182');
      if (schema.format === 'email') return fc.constantFrom('ada@example.com');
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern)).filter((v) => v.length <= 40);
      return fc.oneof(fc.constantFrom('Ada', 'x', 'sales'), fc.string({ minLength: 1, maxLength: 12 }));
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? 0;
      const max = schema.maximum ?? 1000;
      if (h === 0) return fc.integer({ min, max });
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min - 1, max + 1));
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(field(schema.items ?? {}, ids, `${name}[]`, depth + 1, h), { minLength: h === 0 ? 1 : 0, maxLength: 4 });
    case 'object': {
      if (depth > 3 || !schema.properties) return fc.dictionary(fc.string({ maxLength: 10 }), nastyValue, { maxKeys: 3 });
      const props = Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, field(s, ids, k, depth + 1, h)]));
      return fc.record(props, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    default:
      return h === 0 ? fc.jsonValue({ maxDepth: 2 }) : nastyValue;
  }
}

/** A value of the schema's shape, or (one time in h) a hostile one in its place. */
function field(schema: Schema, ids: KnownIds, name: string, depth: number, h: Hostility): fc.Arbitrary<unknown> {
  if (h === 0) return shaped(schema, ids, name, depth, h);
  return fc.oneof({ weight: h - 1, arbitrary: shaped(schema, ids, name, depth, h) }, { weight: 1, arbitrary: nastyValue });
}

// ---------------------------------------------------------------- encoding

/**
 * Percent-encodes text the way a careless client might: UTF-8, but a lone surrogate as its
 * three CESU-8 bytes (%ED%A0%80), which is not valid UTF-8 (encodeURIComponent would throw).
 */
export function hostileEncode(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const paired = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
    if (paired) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out +=
        `%${(0xe0 | (c >> 12)).toString(16)}%${(0x80 | ((c >> 6) & 0x3f)).toString(16)}%${(0x80 | (c & 0x3f)).toString(16)}`.toUpperCase();
    } else {
      out += encodeURIComponent(s[i]);
    }
  }
  return out;
}

const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'));

const RAW_PATH_IDS = ['%00', '%FF', '%', '%2', '..', '%2e%2e', '%ED%A0%80', 'a%00b', '%C0%AF', '__proto__', 'constructor', 'x'.repeat(600)];
const RAW_QUERY_EXTRAS = [
  '__proto__=x',
  '__proto__[admin]=1',
  'constructor[prototype][x]=1',
  '%00=1',
  'x=%FF',
  'a=%',
  'b=%2',
  'api_key=sk_test_leak',
  'limit=1&limit=2',
  'limit=',
  '=',
  '&&&',
  `q=${'y'.repeat(3000)}`,
];
const RAW_BODIES = [
  '{',
  '{"a":',
  'null',
  '[]',
  '"x"',
  '1',
  'true',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"a":1,"a":2}',
  `{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
  `{"s":"${'x'.repeat(300_000)}"}`,
  '\u0000',
  '{"a":"\\ud800"}',
];

function pathArb(op: Operation, ids: KnownIds): fc.Arbitrary<string> {
  const forParam = (name: string): fc.Arbitrary<string> => {
    const real = op.path.startsWith('/v1/bookings/external')
      ? ids.externalIds
      : op.path.startsWith('/v1/bookings')
        ? ids.bookings
        : op.path.startsWith('/v1/webhooks')
          ? ids.webhooks
          : op.path.startsWith('/v1/event-types')
            ? ['et_intro_call', 'et_onboarding', 'et_globex_demo']
            : [MEMBERS.amara, MEMBERS.jonas, MEMBERS.otherOrg];
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...real).map(encodeURIComponent) },
      { weight: 2, arbitrary: fc.constantFrom(...RAW_PATH_IDS) },
      { weight: 2, arbitrary: nastyString.map(hostileEncode) },
      { weight: 1, arbitrary: fc.constant(name).map(encodeURIComponent) },
    );
  };
  return fc.tuple(...op.pathParams.map(forParam)).map((values) => {
    let p = op.path;
    op.pathParams.forEach((name, i) => {
      p = p.replace(`{${name}}`, values[i]);
    });
    return p;
  });
}

function queryArb(op: Operation, ids: KnownIds): fc.Arbitrary<string> {
  const one = (q: Operation['query'][number]) =>
    fc.option(
      fc
        .oneof(
          { weight: 4, arbitrary: fc.oneof(field(q.schema, ids, q.name, 0, 0), field(q.schema, ids, q.name, 0, 3)).map((v) => [v]) },
          { weight: 1, arbitrary: fc.tuple(field(q.schema, ids, q.name, 0, 4), field(q.schema, ids, q.name, 0, 4)) }, // a repeated parameter
        )
        .map((values) => values.map((v) => `${q.name}=${hostileEncode(asText(v))}`).join('&')),
      { freq: q.required ? 12 : 2 },
    );
  return fc
    .tuple(fc.tuple(...op.query.map(one)), fc.option(fc.constantFrom(...RAW_QUERY_EXTRAS), { freq: 5 }))
    .map(([parts, extra]) => [...parts, extra].filter((x): x is string => !!x).join('&'));
}

function bodyArb(op: Operation, ids: KnownIds): fc.Arbitrary<string | undefined> {
  const raw = fc.constantFrom(...RAW_BODIES);
  const hostile = nastyValue.map((v) => JSON.stringify(v));
  if (!op.body)
    return fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: hostile }, { weight: 1, arbitrary: raw });
  const valid = shaped(op.body, ids, 'body', 0, 0).map((v) => JSON.stringify(v));
  const mixed = shaped(op.body, ids, 'body', 0, 6).map((v) => JSON.stringify(v));
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 4, arbitrary: mixed },
    { weight: 2, arbitrary: hostile },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

export function caseArb(op: Operation, ids: KnownIds): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      path: pathArb(op, ids),
      query: queryArb(op, ids),
      body: bodyArb(op, ids),
      idempotencyKey: fc.option(fc.constantFrom('fuzz-1', 'fuzz-2', 'fuzz-3', 'x'.repeat(300)), { freq: 4 }),
      contentType: fc.oneof(
        { weight: 12, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/xml') },
      ),
    })
    .map(({ path, query, body: sent, idempotencyKey, contentType }) => {
      const body = op.method === 'GET' ? undefined : sent; // fetch sends no body on a GET
      const headers: Record<string, string> = { authorization: `Bearer ${KEYS.secret}` };
      if (body !== undefined) headers['content-type'] = contentType;
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      return { method: op.method, url: query ? `${path}?${query}` : path, body, headers };
    });
}

// ---------------------------------------------------------------- running and checking

/** The tables a request can write; a refused request must leave every one as it was. */
const WRITTEN = [
  'bookings',
  'booking_members',
  'booking_events',
  'member_booking_counts',
  'member_last_booked',
  'member_busy_days',
  'event_types',
  'event_type_custom_fields',
  'webhooks',
  'webhook_messages',
  'webhook_deliveries',
  'idempotency_keys',
  'email_outbox',
  'members',
  'calendars',
  'graphile_worker._private_jobs',
];

/** Row counts and a hash of every row of the tables a request can write. */
export async function stateOf(pool: Pool): Promise<string> {
  const parts = WRITTEN.map(
    (t) => `(select count(*) || ':' || coalesce(md5(string_agg(md5(x::text), '' order by md5(x::text))), '') from ${t} x)`,
  );
  const r = await pool.query(`select ${parts.join(` || '|' || `)} as s`);
  return r.rows[0].s as string;
}

export interface Outcome {
  status: number;
  violation?: string;
  text: string;
}

const ERROR_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'conflict_error',
  'precondition_error',
  'rate_limit_error',
]);

/** Sends one case and checks its answer; `pool` to compare the written tables around a refusal. */
export async function send(base: string, c: FuzzCase, pool: Pool): Promise<Outcome> {
  const before = await stateOf(pool);
  let res: Response;
  try {
    res = await fetch(base + c.url, { method: c.method, headers: c.headers, body: c.body, signal: AbortSignal.timeout(15_000) });
  } catch (err) {
    return { status: 0, violation: `no answer: ${(err as Error).message}`, text: '' };
  }
  const text = await res.text();
  const status = res.status;
  if (status >= 500) return { status, violation: 'a 5xx', text };
  if (status >= 400) {
    let body: { success?: unknown; error?: { type?: unknown; code?: unknown; message?: unknown } } | undefined;
    try {
      body = JSON.parse(text);
    } catch {
      return { status, violation: 'a 4xx body that is not JSON', text };
    }
    const e = body?.error;
    if (
      body?.success !== false ||
      !e ||
      typeof e.code !== 'string' ||
      typeof e.message !== 'string' ||
      !ERROR_TYPES.has(e.type as string)
    ) {
      return { status, violation: 'a 4xx outside the error envelope', text };
    }
    if (!res.headers.get('x-request-id')) return { status, violation: 'a 4xx without X-Request-Id', text };
    if ((await stateOf(pool)) !== before) return { status, violation: 'a refused request wrote something', text };
  }
  return { status, text };
}

export interface OperationReport {
  operation: string;
  counts: Map<number, number>;
  violations: Violation[];
}

/** `runs` cases of one operation, sequentially (so that each refusal is checked alone). */
export async function fuzzOperation(
  base: string,
  pool: Pool,
  op: Operation,
  ids: KnownIds,
  runs: number,
  seed: number,
): Promise<OperationReport> {
  const operation = `${op.method} ${op.path}`;
  const counts = new Map<number, number>();
  const violations: Violation[] = [];
  for (const c of fc.sample(caseArb(op, ids), { numRuns: runs, seed })) {
    const out = await send(base, c, pool);
    counts.set(out.status, (counts.get(out.status) ?? 0) + 1);
    if (out.violation)
      violations.push({ operation, request: c, status: out.status, problem: out.violation, response: out.text.slice(0, 500) });
  }
  return { operation, counts, violations };
}

/** What a fuzz run needs in the database: a few bookings and webhooks to aim at. */
export async function prepare(
  request: (
    method: string,
    path: string,
    body: unknown,
  ) => Promise<{ status: number; body: { booking?: { id: string }; webhook?: { id: string } } }>,
): Promise<KnownIds> {
  const ids: KnownIds = { bookings: [], webhooks: [], externalIds: [] };
  for (const [i, time] of ['2026-12-02T10:00:00Z', '2026-12-03T10:00:00Z', '2026-12-04T10:00:00Z'].entries()) {
    const res = await request('POST', '/v1/bookings', {
      event_type_id: 'et_intro_call',
      requested_time: time,
      external_id: `fuzz-ext-${i}`,
      attendee: { name: 'Ada Lovelace', email: 'ada@example.com' },
      custom_fields: { company: 'Engines' },
      metadata: { i },
    });
    if (res.status !== 201 || !res.body.booking) throw new Error(`fuzz setup: create booking answered ${res.status}`);
    ids.bookings.push(res.body.booking.id);
    ids.externalIds.push(`fuzz-ext-${i}`);
  }
  for (const n of [1, 2]) {
    const res = await request('POST', '/v1/webhooks', { url: `https://127.0.0.1:9/hook-${n}`, events: ['BOOKING_CREATED'] });
    if (res.status !== 201 || !res.body.webhook) throw new Error(`fuzz setup: create webhook answered ${res.status}`);
    ids.webhooks.push(res.body.webhook.id);
  }
  return ids;
}

/** One line per operation: the counts of each status. */
export function formatReport(reports: OperationReport[]): string {
  const width = Math.max(...reports.map((r) => r.operation.length));
  return reports
    .map((r) => {
      const total = [...r.counts.values()].reduce((a, b) => a + b, 0);
      const statuses = [...r.counts.entries()]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}:${n}`)
        .join(' ');
      return `${r.operation.padEnd(width)}  ${String(total).padStart(5)}  ${statuses}`;
    })
    .join('\n');
}
