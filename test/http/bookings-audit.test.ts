import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp, TestResponse } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import { NOW, activeHolds, create, introBody, seedBooking } from './bookings-helpers.ts';

// Regressions found by a black-box audit against api-spec.md and decisions.md.

let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
});
after(async () => {
  await t.close();
});

function expectError(res: TestResponse, status: number, code: string, field?: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code);
  if (field !== undefined) {
    assert.equal(res.body.error.field, field);
    assert.ok(res.body.error.message.includes(`"${field}"`), res.body.error.message);
  }
}

const count = async (start: string) =>
  (await t.db.pool.query(`select count(*)::int as n from bookings where start_time = $1`, [start])).rows[0].n as number;

describe('POST /bookings: a value of the wrong JSON type is 400, never silently converted', () => {
  const start = '2026-12-07T10:00:00Z';
  const cases: [string, Record<string, unknown>, string][] = [
    ['attendee.name a number', { attendee: { name: 123, email: 'a@example.com' } }, 'attendee.name'],
    ['attendee.email an array', { attendee: { name: 'A', email: ['a@example.com'] } }, 'attendee.email'],
    ['attendee.phone a number', { attendee: { name: 'A', email: 'a@example.com', phone: 4155550100 } }, 'attendee.phone'],
    ['external_id a number', { external_id: 42 }, 'external_id'],
    ['assign_to a boolean', { assign_to: true }, 'assign_to'],
    ['event_type_id a number', { event_type_id: 7 }, 'event_type_id'],
    ['requested_time a number', { requested_time: 1796000000000 }, 'requested_time'],
  ];
  for (const [name, patch, field] of cases) {
    it(name, async () => {
      expectError(await create(t, { ...introBody(start), ...patch }), 400, 'validation_error', field);
    });
  }

  it('a body that is not an object is 400 naming the body', async () => {
    expectError(await create(t, [introBody(start)]), 400, 'validation_error', 'body');
  });

  it('nothing was stored by the refused requests', async () => {
    assert.equal(await count(start), 0);
  });
});

describe('POST /bookings: optional fields sent as null count as not sent', () => {
  it('201 with null external_id, assign_to, metadata, custom fields of an optional-only type, phone and timezone', async () => {
    const res = await create(t, {
      event_type_id: 'et_onboarding',
      requested_time: '2026-12-07T15:00:00Z',
      attendee: { name: 'A', email: 'a@example.com', phone: null, timezone: null },
      custom_fields: null,
      metadata: null,
      external_id: null,
      assign_to: null,
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.booking.metadata, {});
    assert.equal(res.body.booking.external_id, null);
  });
});

describe('bodyless operations accept Content-Type: application/json with an empty body', () => {
  const bare = (method: 'POST' | 'DELETE', path: string) =>
    t.request(method, path, { key: KEYS.secret, rawBody: '', headers: { 'content-type': 'application/json' } });

  it('confirm, complete, no-show and DELETE answer 200', async () => {
    const pending = await seedBooking(t, { status: 'PENDING_CONFIRMATION', start: '2026-12-14T09:00:00Z' });
    const res = await bare('POST', `/v1/bookings/${pending}/confirm`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.booking.status, 'SCHEDULED');
    const done = await bare('POST', `/v1/bookings/${pending}/complete`);
    assert.equal(done.body.booking.status, 'COMPLETED', done.text);

    const other = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-14T11:00:00Z' });
    const noShow = await bare('POST', `/v1/bookings/${other}/no-show`);
    assert.equal(noShow.body.booking.status, 'NO_SHOW', noShow.text);

    const third = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-14T13:00:00Z' });
    const cancelled = await bare('DELETE', `/v1/bookings/${third}`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.booking.status, 'CANCELLED');
    assert.equal(cancelled.body.booking.cancellation_reason, null);
  });

  it('POST /bookings with an empty JSON body is still 400', async () => {
    expectError(await bare('POST', '/v1/bookings'), 400, 'validation_error');
  });
});

describe('DELETE and reschedule bodies keep their types', () => {
  it('DELETE with a numeric reason is 400 naming reason, and the booking stays', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-15T09:00:00Z' });
    expectError(
      await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret, body: { reason: 5 } }),
      400,
      'validation_error',
      'reason',
    );
    const got = await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.secret });
    assert.equal(got.body.booking.status, 'SCHEDULED');
  });

  it('reschedule with a numeric start_time is 400 naming start_time', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-15T11:00:00Z' });
    const res = await t.request('POST', `/v1/bookings/${id}/reschedule`, { key: KEYS.secret, body: { start_time: 1796000000000 } });
    expectError(res, 400, 'validation_error', 'start_time');
  });
});

describe('reschedule to the time the booking already has', () => {
  it('is 409 (that time is not a free slot), also written with another offset; nothing changes', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-16T09:00:00Z' });
    const move = (start_time: string) => t.request('POST', `/v1/bookings/${id}/reschedule`, { key: KEYS.secret, body: { start_time } });
    expectError(await move('2026-12-16T09:00:00Z'), 409, 'conflict');
    expectError(await move('2026-12-16T10:00:00.000+01:00'), 409, 'conflict');
    const got = await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.secret });
    assert.equal(got.body.booking.status, 'SCHEDULED');
    assert.equal(got.body.booking.rescheduled_to, null);
    assert.equal((await activeHolds(t, id)).length, 1);
  });
});
