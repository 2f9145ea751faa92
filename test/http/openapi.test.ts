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
    for (const path of ['/healthz', '/readyz', '/v1/freebusy/{userId}']) assert.deepEqual(doc.paths[path].get.security, [], path);
    assert.ok(doc.paths['/v1/event-types'].get.security === undefined, 'keyed routes inherit the global requirement');
    assert.ok(doc.paths['/v1/event-types'].post.responses['413'], 'bodies over 256 KB are documented');
  });
});
