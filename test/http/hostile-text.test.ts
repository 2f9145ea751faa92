import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp, TestResponse } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { NOW, created, introBody } from './bookings-helpers.ts';

/**
 * Decisions.md §6: NUL (U+0000) and unpaired UTF-16 surrogates, which PostgreSQL cannot store,
 * are refused once at the edge for every route: 400 naming the field in a body or query, 404
 * for a path id, never a 500, and nothing written.
 */

let t: TestApp;
let bookingId: string;
let webhookId: string;
before(async () => {
  t = await startApp({ now: NOW });
  bookingId = (await created(t, introBody('2026-12-02T10:00:00Z'))).id;
  const hook = await t.request('POST', '/v1/webhooks', {
    key: KEYS.secret,
    body: { url: 'https://127.0.0.1:9/h', events: ['BOOKING_CREATED'] },
  });
  assert.equal(hook.status, 201, hook.text);
  webhookId = hook.body.webhook.id;
});
after(async () => t?.close());

const NUL = 'a\u0000b';
const LONE = 'a\ud800';

async function snapshot(): Promise<string> {
  const tables = ['bookings', 'booking_events', 'event_types', 'webhooks', 'idempotency_keys', 'graphile_worker._private_jobs'];
  const rows = await Promise.all(tables.map(async (tb) => (await t.db.pool.query(`select count(*)::int n from ${tb}`)).rows[0].n));
  const booking = await t.db.pool.query('select attendee, status, cancellation_reason from bookings where id = $1', [bookingId]);
  const hook = await t.db.pool.query('select url, description from webhooks where id = $1', [webhookId]);
  return JSON.stringify([rows, booking.rows, hook.rows]);
}

function expect400(res: TestResponse, field: string, label: string) {
  assert.equal(res.status, 400, `${label}: ${res.text}`);
  assert.equal(res.body.success, false, label);
  assert.equal(res.body.error.code, 'validation_error', label);
  assert.equal(res.body.error.type, 'invalid_request_error', label);
  assert.equal(res.body.error.field, field, label);
  assert.ok(res.body.error.message.includes(field), label);
  assert.ok(res.headers.get('x-request-id'), label);
}

/** A JSON body as text, so that `\u0000` and a lone `\ud800` reach the server as JSON escapes. */
const raw = (body: unknown) => JSON.stringify(body);

describe('text fields of the eight write endpoints', () => {
  // [method, path, body with the bad text at `field`, field]
  const cases = (bad: string): Array<[string, () => string, Record<string, unknown>, string]> => [
    ['POST', () => '/v1/bookings', introBody('2026-12-03T10:00:00Z', { attendee: { name: bad, email: 'a@example.com' } }), 'attendee.name'],
    ['POST', () => '/v1/bookings', introBody('2026-12-03T10:00:00Z', { custom_fields: { company: bad } }), 'custom_fields.company'],
    ['POST', () => '/v1/bookings', introBody('2026-12-03T10:00:00Z', { metadata: { crm: { tags: ['x', bad] } } }), 'metadata.crm.tags[1]'],
    ['POST', () => '/v1/bookings', introBody('2026-12-03T10:00:00Z', { external_id: bad }), 'external_id'],
    ['PATCH', () => `/v1/bookings/${bookingId}`, { attendee: { name: bad } }, 'attendee.name'],
    ['DELETE', () => `/v1/bookings/${bookingId}`, { reason: bad }, 'reason'],
    ['POST', () => `/v1/bookings/${bookingId}/reschedule`, { start_time: '2026-12-03T10:00:00Z', reason: bad }, 'reason'],
    [
      'POST',
      () => '/v1/event-types',
      { team_id: 'team_advisors', name: bad, duration: 30, workload: { prep: 0, meeting: 30, implementation: 0, admin: 0 } },
      'name',
    ],
    ['PATCH', () => '/v1/event-types/et_intro_call', { description: bad }, 'description'],
    ['POST', () => '/v1/webhooks', { url: 'https://127.0.0.1:9/h', events: ['BOOKING_CREATED'], description: bad }, 'description'],
    ['PATCH', () => `/v1/webhooks/${webhookId}`, { url: `https://127.0.0.1:9/${bad}` }, 'url'],
  ];
  for (const [name, bad] of [
    ['NUL', NUL],
    ['an unpaired surrogate', LONE],
  ]) {
    it(`${name} in any text field → 400 naming it, nothing written`, async () => {
      const before = await snapshot();
      for (const [method, path, body, field] of cases(bad)) {
        expect400(await t.request(method, path(), { key: KEYS.secret, rawBody: raw(body) }), field, `${method} ${path()} ${field}`);
      }
      assert.equal(await snapshot(), before);
    });
  }

  it('in an object key, and a low surrogate alone → 400 naming where', async () => {
    const before = await snapshot();
    const body = introBody('2026-12-03T10:00:00Z', { metadata: { [`k${NUL}`]: 1 } });
    expect400(await t.request('POST', '/v1/bookings', { key: KEYS.secret, rawBody: raw(body) }), 'metadata', 'key');
    const top = { ...introBody('2026-12-03T10:00:00Z'), [`x${LONE}`]: 1 };
    expect400(await t.request('POST', '/v1/bookings', { key: KEYS.secret, rawBody: raw(top) }), 'body', 'top-level key');
    expect400(await t.request('GET', '/v1/bookings?a%00=1', { key: KEYS.secret }), 'query', 'query parameter name');
    const low = introBody('2026-12-03T10:00:00Z', { custom_fields: { company: 'x\udc00y' } });
    expect400(await t.request('POST', '/v1/bookings', { key: KEYS.secret, rawBody: raw(low) }), 'custom_fields.company', 'low');
    assert.equal(await snapshot(), before);
  });

  it('a paired surrogate (an emoji) is ordinary text', async () => {
    const res = await t.request('POST', '/v1/bookings', {
      key: KEYS.secret,
      rawBody: raw(introBody('2026-12-03T10:00:00Z', { attendee: { name: 'Ada \ud83d\ude00', email: 'ada@example.com' } })),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.booking.attendee.name, 'Ada 😀');
  });

  it('bytes that are not UTF-8 (a surrogate written as UTF-8, a stray byte) → 400, nothing written', async () => {
    const before = await snapshot();
    const json = Buffer.from(raw(introBody('2026-12-03T11:00:00Z', { attendee: { name: 'aXb', email: 'ada@example.com' } })));
    const at = json.indexOf('aXb') + 1;
    for (const bytes of [[0xed, 0xa0, 0x80], [0xff], [0xc3]]) {
      const body = Buffer.concat([json.subarray(0, at), Buffer.from(bytes), json.subarray(at + 1)]);
      const res = await fetch(`${t.url}/v1/bookings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.secret}`, 'content-type': 'application/json' },
        body,
      });
      const answer = (await res.json()) as { error: { code: string; field: string; message: string } };
      assert.equal(res.status, 400, JSON.stringify(answer));
      assert.equal(answer.error.code, 'validation_error');
      assert.equal(answer.error.field, 'body');
      assert.match(answer.error.message, /UTF-8/);
    }
    assert.equal(await snapshot(), before);
  });

  it('a body nested deeper than 32 levels → 400, not a stack overflow', async () => {
    const deep = `{"metadata":{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`;
    const res = await t.request('POST', '/v1/bookings', { key: KEYS.secret, rawBody: deep, headers: { 'idempotency-key': 'deep-1' } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'validation_error');
    assert.match(res.body.error.field, /^metadata\.a/);
  });
});

describe('query values and path ids', () => {
  it('NUL in a query value → 400 naming the parameter', async () => {
    const before = await snapshot();
    for (const [path, field] of [
      ['/v1/bookings?event_type_id=%00', 'event_type_id'],
      ['/v1/bookings?attendee_email=a%00@b.co', 'attendee_email'],
      ['/v1/team/members/available?skills=%00', 'skills'],
      ['/v1/team/members?skills=sales&skills=x%00', 'skills[1]'],
      ['/v1/availability?eventTypeId=et_intro_call%00&start_date=2026-12-02&end_date=2026-12-02', 'eventTypeId'],
      [`/v1/freebusy/${MEMBERS.amara}?start=2026-12-02T00:00:00Z%00&end=2026-12-03T00:00:00Z`, 'start'],
      ['/v1/calendars?provider=%00', 'provider'],
      [`/v1/webhooks/${webhookId}/deliveries?cursor=%00`, 'cursor'],
    ]) {
      expect400(await t.request('GET', path, { key: KEYS.secret }), field, path);
    }
    assert.equal(await snapshot(), before);
  });

  it('NUL in a path id → 404 in the envelope, on reads and writes', async () => {
    const before = await snapshot();
    for (const [method, path] of [
      ['GET', '/v1/bookings/%00'],
      ['GET', '/v1/bookings/external/x%00'],
      ['PATCH', '/v1/bookings/bkg_%00'],
      ['POST', '/v1/bookings/%00/confirm'],
      ['DELETE', '/v1/event-types/%00'],
      ['GET', '/v1/team/members/%00'],
      ['GET', '/v1/calendars/%00'],
      ['GET', '/v1/freebusy/%00?start=2026-12-02T00:00:00Z&end=2026-12-03T00:00:00Z'],
      ['POST', '/v1/webhooks/%00/test'],
      ['GET', '/bookings/%00'],
    ]) {
      const res = await t.request(method, path, { key: KEYS.secret, body: method === 'PATCH' ? { attendee: { name: 'x' } } : undefined });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'not_found');
      assert.ok(res.headers.get('x-request-id'));
    }
    assert.equal(await snapshot(), before);
  });
});
