import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { TestApp, TestResponse } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import type { Json } from '../helpers/openapi.ts';
import { documentValidator } from '../helpers/openapi.ts';
import { NOW, introBody } from './bookings-helpers.ts';
import { ACCESS } from '../../src/http/access.ts';
import { ERROR_CODES, ERROR_TYPES } from '../../src/domain/errors.ts';
import { EVENT_TYPES } from '../../src/domain/events/record.ts';
import { PLACEHOLDER } from '../../src/http/openapi-docs.ts';

let t: TestApp;
let doc: Json;
before(async () => {
  t = await startApp({ now: NOW });
  doc = (await t.request('GET', '/v1/openapi.json')).body;
});
after(async () => t?.close());

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, served without a key', async () => {
    const res = await t.request('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    const result = await new Validator().validate(res.body);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
  });

  it('documents every keyed route of the access table once, under /v1 only', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    const paths = Object.keys(doc.paths);
    assert.ok(
      paths.every((p) => p.startsWith('/v1/') || p === '/healthz' || p === '/readyz'),
      paths.join(' '),
    );
    const documented = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item))
        documented.add(`${method.toUpperCase()} ${p.replace(/^\/v1/, '').replace(/\{(\w+)\}/g, ':$1')}`);
    }
    const missing = Object.entries(ACCESS)
      .filter(([, a]) => a.kind !== 'public')
      .map(([route]) => route)
      .filter((route) => !documented.has(route));
    assert.deepEqual(missing, [], 'every route of the access table is implemented and documented');
  });

  it('lists the Idempotency-Key header on every POST and DELETE (decisions §4), and on no GET', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    let keyed = 0;
    type Parameter = { in: string; name: string; $ref?: string };
    // a parameter is written in place or referenced from components.parameters
    const resolve = (x: Parameter): Parameter => (x.$ref ? doc.components.parameters[x.$ref.replace('#/components/parameters/', '')] : x);
    for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: Parameter[] }>>)) {
      for (const [method, op] of Object.entries(item)) {
        const has = (op.parameters ?? []).map(resolve).some((x) => x.in === 'header' && x.name === 'Idempotency-Key');
        assert.equal(has, method === 'post' || method === 'delete', `${method} ${p}`);
        if (has) keyed++;
      }
    }
    assert.ok(doc.paths['/v1/bookings'].post.parameters.map(resolve).some((x: Parameter) => x.name === 'Idempotency-Key'));
    assert.ok(keyed >= 10, `${keyed} keyed operations`);
  });

  it('types the user and member ids of free/busy, calendars and team members as UUIDs, as the service refuses anything else', () => {
    type Parameter = { in: string; name: string; schema: { format?: string } };
    const found: string[] = [];
    for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: Parameter[] }>>)) {
      for (const [method, op] of Object.entries(item)) {
        for (const x of op.parameters ?? []) {
          // (availability's assigned_to_id stays a string: the service names the alias a client sent in its 400)
          if (!['userId', 'id'].includes(x.name)) continue;
          if (x.name === 'id' && !p.startsWith('/v1/team/members/')) continue;
          found.push(`${method} ${p} ${x.name}`);
          assert.equal(x.schema.format, 'uuid', `${method} ${p} ${x.in} ${x.name}`);
        }
      }
    }
    for (const route of ['get /v1/freebusy/{userId} userId', 'get /v1/calendars/{userId} userId', 'get /v1/calendars userId']) {
      assert.ok(found.includes(route), `${route} among ${found.join(', ')}`);
    }
  });

  it("lets every operation take the caller's X-Request-Id, lists the parser's 408/414/431, and no rate headers on a 401", () => {
    type Parameter = { $ref?: string };
    type Operation = { parameters?: Parameter[]; responses: Record<string, { headers?: Record<string, unknown> }> };
    for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(item)) {
        assert.ok(
          (op.parameters ?? []).some((x) => x.$ref === '#/components/parameters/RequestId'),
          `${method} ${p} takes X-Request-Id`,
        );
        // what Node's HTTP parser answers before any route, in the envelope (docs/edge.md)
        if ((op as { security?: unknown[] }).security?.length) {
          for (const status of ['408', '414', '431']) assert.ok(op.responses[status], `${method} ${p} documents ${status}`);
        }
        const unauthorized = op.responses['401'];
        if (unauthorized) assert.equal(unauthorized.headers?.['X-RateLimit-Limit'], undefined, `${method} ${p} 401`);
      }
    }
    const param = doc.components.parameters.RequestId;
    assert.deepEqual([param.in, param.name, param.required], ['header', 'X-Request-Id', false]);
  });

  it('marks the keyless routes as needing no key (regression: health showed the global key requirement)', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    for (const path of ['/healthz', '/readyz']) assert.deepEqual(doc.paths[path].get.security, [], path);
    // free/busy: no key, or any valid key (decisions §3)
    assert.deepEqual(doc.paths['/v1/freebusy/{userId}'].get.security[0], {});
    assert.ok(doc.paths['/v1/event-types'].post.responses['413'], 'bodies over 256 KB are documented');
    // on every operation that takes a body, PATCH included (the service answers 413 there too)
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses: object }>>)) {
      for (const method of ['post', 'patch', 'delete']) {
        if (item[method]) assert.ok(Object.hasOwn(item[method].responses, '413'), `${method.toUpperCase()} ${path} lists 413`);
      }
    }
  });

  it('names the scope of every keyed operation, as the access table has it, and who may hold it', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    for (const [route, access] of Object.entries(ACCESS)) {
      if (access.kind !== 'key') continue;
      const [method, path] = route.split(' ');
      const op = doc.paths[`/v1${path!.replace(/:(\w+)/g, '{$1}')}`][method!.toLowerCase()];
      assert.deepEqual(
        op.security,
        [{ bearer: [access.scope] }, { serviceApiKey: [access.scope] }, { legacyApiKey: [access.scope] }],
        route,
      );
      assert.match(op.description, new RegExp(access.publishable ? 'publishable keys holding it' : 'secret keys only'), route);
    }
  });

  it('documents what the global layers answer: replays, idempotency conflicts, 500, headers', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    const create = doc.paths['/v1/webhooks'].post;
    for (const status of ['200', '201', '400', '409', '413', '422', '500']) assert.ok(create.responses[status], `POST /webhooks ${status}`);
    assert.ok(create.responses['200'].headers['Idempotent-Replayed']);
    assert.ok(create.responses['201'].headers['X-RateLimit-Remaining']);
    assert.ok(create.responses['429'].headers['Retry-After']);
    assert.ok(doc.paths['/healthz'].get.responses['200'].headers['X-Request-Id']);
    const list = doc.paths['/v1/team/members'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    assert.equal(list.required, false, 'a query parameter with a default is optional');
    assert.equal(doc.paths['/v1/bookings/{id}'].delete.requestBody.required, false, 'a cancel needs no body');
  });
});

const operations = () =>
  Object.entries(doc.paths as Json).flatMap(([p, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ route: `${method.toUpperCase()} ${p}`, op: op as Json })),
  );

describe('the document for integrators', () => {
  it('names every operation (unique operationIds), summarises, describes and tags it with a declared tag', () => {
    const ops = operations();
    const keyed = Object.values(ACCESS).filter((a) => a.kind !== 'public').length;
    assert.equal(ops.length, keyed + 2, 'every keyed route, /healthz and /readyz');
    const ids = ops.map(({ op }) => op.operationId);
    assert.equal(new Set(ids).size, ids.length, ids.join(' '));
    const tags = new Map((doc.tags as { name: string; description: string }[]).map((tag) => [tag.name, tag.description]));
    for (const { route, op } of ops) {
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, route);
      assert.ok(op.summary && op.description, `${route}: summary and description`);
      assert.ok(op.tags?.length === 1 && tags.get(op.tags[0]), `${route}: a declared tag with a description`);
    }
    for (const [route, id] of [
      ['POST /v1/bookings', 'createBooking'],
      ['GET /v1/bookings', 'listBookings'],
      ['GET /v1/bookings/{id}', 'getBooking'],
      ['PATCH /v1/bookings/{id}', 'updateBooking'],
      ['POST /v1/bookings/{id}/reschedule', 'rescheduleBooking'],
      ['DELETE /v1/bookings/{id}', 'cancelBooking'],
    ])
      assert.equal(ops.find((o) => o.route === route)?.op.operationId, id, route);
  });

  it('describes every response (no "Default Response") and every keyed operation\'s 4xx answers', () => {
    for (const { route, op } of operations()) {
      for (const [status, res] of Object.entries(op.responses as Json)) {
        assert.ok(res.description && res.description !== 'Default Response', `${route} ${status}`);
      }
      if (op.security.length > 0)
        assert.ok(
          Object.keys(op.responses).some((s) => s.startsWith('4')),
          `${route}: a 4xx`,
        );
    }
  });

  it('has named components referenced by $ref, and the guide, license and contact in info', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'Booking',
      'Attendee',
      'EventType',
      'CustomField',
      'TeamMember',
      'Calendar',
      'Webhook',
      'WebhookDelivery',
      'Error',
      'ErrorCode',
      'CursorPagination',
      'OffsetPagination',
      'CalendarPagination',
      'CreateBookingRequest',
      'UpdateBookingRequest',
    ])
      assert.ok(names.includes(name), name);
    assert.ok(!names.some((n) => /^def-\d+$/.test(n)), `no anonymous components: ${names.join(' ')}`);
    const text = JSON.stringify(doc.paths);
    assert.ok((text.match(/"\$ref"/g) ?? []).length > 100, 'paths use $ref');
    assert.ok(!text.includes('"$id"'), 'no schema is inlined with its $id');
    const read = doc.paths['/v1/bookings/{id}'].get.responses['200'].content['application/json'];
    assert.equal(read.schema.$ref, '#/components/schemas/BookingResponse');
    assert.equal(doc.components.schemas.BookingResponse.properties.booking.$ref, '#/components/schemas/Booking');
    assert.deepEqual(doc.components.schemas.ErrorCode.enum, [...ERROR_CODES]);
    assert.deepEqual(doc.components.schemas.ErrorType.enum, [...ERROR_TYPES]);
    assert.equal(doc.components.schemas.Error.properties.error.properties.code.$ref, '#/components/schemas/ErrorCode');
    const headings = ['Keys and scopes', 'Test and live mode', 'Idempotency', 'Errors', 'Pagination', 'Rate limits', 'Webhook signatures'];
    for (const heading of headings) {
      assert.ok(doc.info.description.includes(`## ${heading}`), heading);
    }
    assert.ok(doc.info.license?.name && doc.info.contact?.name);
  });

  it("has a webhooks section: one typed payload per event name, and subscriptions' events typed by the same enum", () => {
    assert.deepEqual(Object.keys(doc.webhooks), [...EVENT_TYPES]);
    for (const name of EVENT_TYPES) {
      const ref: string = doc.webhooks[name].post.requestBody.content['application/json'].schema.$ref;
      const payload = doc.components.schemas[ref.replace('#/components/schemas/', '')];
      assert.deepEqual(payload.properties.event.enum ?? [payload.properties.event.const], [name], name);
      assert.equal(payload.properties.data.$ref, '#/components/schemas/Booking');
      const headers = doc.webhooks[name].post.parameters.map((p: { name: string }) => p.name);
      assert.deepEqual(headers, ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    }
    assert.deepEqual(doc.components.schemas.WebhookEventName.enum, [...EVENT_TYPES]);
    assert.equal(doc.components.schemas.Webhook.properties.events.items.$ref, '#/components/schemas/WebhookEventName');
    assert.equal(doc.components.schemas.CreateWebhookRequest.properties.events.items.$ref, '#/components/schemas/WebhookEventName');
  });

  it('shows an example, valid against its schema, on every request body, success response and webhook payload', () => {
    const compile = documentValidator(doc);
    const media: [string, Json][] = [];
    for (const { route, op } of operations()) {
      for (const [type, m] of Object.entries((op.requestBody?.content ?? {}) as Json)) media.push([`${route} body ${type}`, m]);
      for (const [status, res] of Object.entries(op.responses as Json)) {
        for (const [type, m] of Object.entries((res.content ?? {}) as Json)) media.push([`${route} ${status} ${type}`, m]);
      }
    }
    for (const [name, hook] of Object.entries(doc.webhooks as Json)) {
      media.push([`webhook ${name}`, hook.post.requestBody.content['application/json']]);
    }
    assert.ok(media.length > 250, `${media.length} media`);
    for (const [where, m] of media) {
      assert.ok(m.example !== undefined, `${where}: an example`);
      const text = JSON.stringify(m.example);
      assert.ok(!text.includes(JSON.stringify(PLACEHOLDER)), `${where}: a real example, not "${PLACEHOLDER}": ${text}`);
      const check = compile(m.schema);
      assert.ok(check(m.example), `${where}: ${JSON.stringify(check.errors)}`);
    }
  });
});

describe('real answers match the document', () => {
  let compile: ReturnType<typeof documentValidator> | undefined;
  const seen: string[] = [];

  /** Validates a response against the document's schema for its operation and status. */
  function conforms(res: TestResponse, method: string, template: string): TestResponse {
    const op = doc.paths[template]?.[method.toLowerCase()];
    assert.ok(op, `${method} ${template} is documented`);
    const documented = op.responses[String(res.status)];
    assert.ok(documented, `${method} ${template}: status ${res.status} is documented (${res.text.slice(0, 200)})`);
    const schema = documented.content['application/json'].schema;
    const check = (compile ??= documentValidator(doc))(schema);
    assert.ok(check(res.body), `${method} ${template} ${res.status}: ${JSON.stringify(check.errors)}\n${res.text.slice(0, 500)}`);
    seen.push(`${method} ${template} ${res.status}`);
    return res;
  }
  type Options = { key?: string | null; body?: unknown; headers?: Record<string, string> };
  const call = async (method: string, template: string, url: string, opts: Options = {}) =>
    conforms(await t.request(method, url, { key: KEYS.secret, ...opts }), method, template);

  it('for bookings, event types, members, calendars, webhooks, probes and errors', async () => {
    const day = NOW.toISOString().slice(0, 10);
    const query = `event_type_id=et_intro_call&start_date=${day}&end_date=${day}`;
    const availability = await call('GET', '/v1/availability', `/v1/availability?${query}`);
    const [first, second] = availability.body.slots as { start: string }[];
    assert.ok(first && second, 'two free slots');
    const body = introBody(first.start);
    const created = await call('POST', '/v1/bookings', '/v1/bookings', { body, headers: { 'Idempotency-Key': 'doc-check-1' } });
    assert.equal(created.status, 201);
    const replay = await call('POST', '/v1/bookings', '/v1/bookings', { body, headers: { 'Idempotency-Key': 'doc-check-1' } });
    assert.equal(replay.status, 200);
    const id: string = created.body.booking.id;
    await call('GET', '/v1/bookings/{id}', `/v1/bookings/${id}`);
    await call('GET', '/v1/bookings', '/v1/bookings?limit=1');
    await call('PATCH', '/v1/bookings/{id}', `/v1/bookings/${id}`, { body: { attendee: { name: 'Ada King' } } });
    // no worker runs here, so the booking stays DRAFT: a reschedule is 409, a cancel is fine
    const moved = await call('POST', '/v1/bookings/{id}/reschedule', `/v1/bookings/${id}/reschedule`, {
      body: { start_time: second.start },
    });
    assert.equal(moved.status, 409, moved.text);
    await call('DELETE', '/v1/bookings/{id}', `/v1/bookings/${id}`, { body: { reason: 'no longer needed' } });
    await call('POST', '/v1/bookings/{id}/confirm', `/v1/bookings/${id}/confirm`); // cancelled: 409

    await call('GET', '/v1/event-types', '/v1/event-types');
    await call('GET', '/v1/event-types/{id}', '/v1/event-types/et_intro_call');
    await call('GET', '/v1/event-types/{id}/fields', '/v1/event-types/et_intro_call/fields');
    await call('GET', '/v1/team/members', '/v1/team/members');
    await call('GET', '/v1/team/members/available', `/v1/team/members/available?date=${day}`);
    await call('GET', '/v1/team/members/{id}', `/v1/team/members/${MEMBERS.amara}`);
    await call('GET', '/v1/calendars', '/v1/calendars');
    await call('GET', '/v1/calendars/{userId}', `/v1/calendars/${MEMBERS.amara}`);
    await call('GET', '/v1/freebusy/{userId}', `/v1/freebusy/${MEMBERS.amara}?start=${day}T00:00:00Z&end=${day}T12:00:00Z`, { key: null });

    const hook = await call('POST', '/v1/webhooks', '/v1/webhooks', {
      body: { url: 'https://127.0.0.1:9/hooks', events: ['BOOKING_CREATED'] },
    });
    const hookId: string = hook.body.webhook.id;
    await call('GET', '/v1/webhooks', '/v1/webhooks');
    await call('PATCH', '/v1/webhooks/{id}', `/v1/webhooks/${hookId}`, { body: { description: 'CRM' } });
    await call('POST', '/v1/webhooks/{id}/test', `/v1/webhooks/${hookId}/test`);
    await call('GET', '/v1/webhooks/{id}/deliveries', `/v1/webhooks/${hookId}/deliveries`);
    await call('GET', '/v1/webhooks/{id}/stats', `/v1/webhooks/${hookId}/stats`);
    await call('POST', '/v1/webhooks/{id}/rotate-secret', `/v1/webhooks/${hookId}/rotate-secret`);
    await call('DELETE', '/v1/webhooks/{id}', `/v1/webhooks/${hookId}`);

    await call('GET', '/healthz', '/healthz', { key: null });
    await call('GET', '/readyz', '/readyz', { key: null });
    await call('GET', '/v1/bookings', '/v1/bookings', { key: null }); // 401
    await call('GET', '/v1/bookings/{id}', '/v1/bookings/bkg_missing'); // 404
    await call('GET', '/v1/bookings', '/v1/bookings?limit=0'); // 400
    await call('GET', '/v1/calendars', '/v1/calendars', { key: KEYS.publishableAnyOrigin }); // 403
    assert.ok(seen.length >= 30, seen.join('\n'));
  });
});
