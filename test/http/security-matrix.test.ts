import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCESS } from '../../src/http/access.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';

/**
 * Every keyed route of the access table against the cases every endpoint must refuse the
 * same way: no key, unknown key, missing scope, publishable key on a secret-only route,
 * disallowed origin, malformed JSON, a body over 256 KB. None of them may write anything.
 */

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(async () => t?.close());

const keyed = Object.entries(ACCESS).flatMap(([route, access]) => (access.kind === 'key' ? [{ route, access }] : []));

function concrete(route: string): { method: string; path: string } {
  const [method, pattern] = route.split(' ');
  const path = pattern
    .replace(':userId', MEMBERS.amara)
    .replace(':externalId', 'ext-1')
    .replace(':id', pattern.startsWith('/team/members') ? MEMBERS.amara : 'some_id');
  return { method, path: `/v1${path}` };
}

const hasBody = (method: string) => method === 'POST' || method === 'PATCH';

async function snapshot(): Promise<string> {
  const tables = ['event_types', 'bookings', 'booking_events', 'idempotency_keys', 'members', 'calendars'];
  const counts = await Promise.all(tables.map(async (tb) => (await t.db.pool.query(`select count(*)::int n from ${tb}`)).rows[0].n));
  return counts.join(',');
}

function expectError(
  res: { status: number; body: { success?: boolean; error?: { code: string } } },
  status: number,
  code: string,
  label: string,
) {
  assert.equal(res.status, status, `${label}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.success, false, label);
  assert.equal(res.body.error?.code, code, label);
}

describe('every keyed endpoint refuses bad callers and bad bodies in the envelope, writing nothing', () => {
  it('no key → 401, unknown key → 401', async () => {
    const before = await snapshot();
    for (const { route } of keyed) {
      const { method, path } = concrete(route);
      const body = hasBody(method) ? {} : undefined;
      expectError(await t.request(method, path, { body }), 401, 'unauthorized', `${route} without key`);
      expectError(
        await t.request(method, path, { key: 'sk_test_unknown_key_000000000', body }),
        401,
        'unauthorized',
        `${route} unknown key`,
      );
    }
    assert.equal(await snapshot(), before);
  });

  it('a key without the scope → 403; a publishable key on a secret-only route → 403', async () => {
    const before = await snapshot();
    for (const { route, access } of keyed) {
      const { method, path } = concrete(route);
      const body = hasBody(method) ? {} : undefined;
      if (access.scope !== 'event-types:read') {
        expectError(await t.request(method, path, { key: KEYS.readOnly, body }), 403, 'forbidden', `${route} without scope`);
      }
      if (!access.publishable) {
        expectError(await t.request(method, path, { key: KEYS.publishableAnyOrigin, body }), 403, 'forbidden', `${route} publishable`);
      }
    }
    assert.equal(await snapshot(), before);
  });

  it('a disallowed Origin → 403 on every endpoint a publishable key may call', async () => {
    for (const { route, access } of keyed.filter((k) => k.access.publishable)) {
      const { method, path } = concrete(route);
      const res = await t.request(method, path, {
        key: KEYS.publishable,
        headers: { origin: 'https://evil.example' },
        body: hasBody(method) ? {} : undefined,
      });
      expectError(res, 403, 'forbidden', `${route} (${access.scope}) from a disallowed origin`);
    }
  });

  it('malformed JSON → 400 and a body over 256 KB → 413 on every endpoint that takes a body', async () => {
    const before = await snapshot();
    for (const { route } of keyed) {
      const { method, path } = concrete(route);
      if (!hasBody(method)) continue;
      expectError(
        await t.request(method, path, { key: KEYS.secret, rawBody: '{"attendee": {' }),
        400,
        'validation_error',
        `${route} malformed`,
      );
      const big = JSON.stringify({ padding: 'x'.repeat(256 * 1024 + 10) });
      expectError(await t.request(method, path, { key: KEYS.secret, rawBody: big }), 413, 'payload_too_large', `${route} too large`);
    }
    assert.equal(await snapshot(), before);
  });
});
