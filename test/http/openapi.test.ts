import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { ACCESS } from '../../src/http/access.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ seed: null });
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
    assert.ok(paths.every((p) => p.startsWith('/v1/') || p === '/healthz' || p === '/readyz'), paths.join(' '));
    const documented = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${p.replace(/^\/v1/, '').replace(/\{(\w+)\}/g, ':$1')}`);
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
    for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>)) {
      for (const [method, op] of Object.entries(item)) {
        const has = (op.parameters ?? []).some((x) => x.in === 'header' && x.name === 'Idempotency-Key');
        assert.equal(has, method === 'post' || method === 'delete', `${method} ${p}`);
        if (has) keyed++;
      }
    }
    assert.ok(doc.paths['/v1/bookings'].post.parameters.some((x: { name: string }) => x.name === 'Idempotency-Key'));
    assert.ok(keyed >= 10, `${keyed} keyed operations`);
  });

  it('marks the keyless routes as needing no key (regression: health showed the global key requirement)', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    for (const path of ['/healthz', '/readyz']) assert.deepEqual(doc.paths[path].get.security, [], path);
    // free/busy: no key, or any valid key (decisions §3)
    assert.deepEqual(doc.paths['/v1/freebusy/{userId}'].get.security[0], {});
    assert.ok(doc.paths['/v1/event-types'].post.responses['413'], 'bodies over 256 KB are documented');
  });

  it('names the scope of every keyed operation, as the access table has it, and who may hold it', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    for (const [route, access] of Object.entries(ACCESS)) {
      if (access.kind !== 'key') continue;
      const [method, path] = route.split(' ');
      const op = doc.paths[`/v1${path!.replace(/:(\w+)/g, '{$1}')}`][method!.toLowerCase()];
      assert.deepEqual(op.security, [{ bearer: [access.scope] }, { serviceApiKey: [access.scope] }, { legacyApiKey: [access.scope] }], route);
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
