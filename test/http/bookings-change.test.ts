import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { NOW, activeHolds, create, created, eventStamps, eventsOf, introBody, seedBooking } from './bookings-helpers.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
});
after(async () => {
  await t.close();
});

const get = async (id: string, key: string = KEYS.secret) => (await t.request('GET', `/v1/bookings/${id}`, { key })).body.booking;
const types = async (id: string) => (await eventsOf(t, id)).map((e) => e.type).sort();

function expectError(
  res: { status: number; text: string; body: { error: { code: string; field?: string } } },
  status: number,
  code: string,
  field?: string,
) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code);
  if (field !== undefined) assert.equal(res.body.error.field, field);
}

describe('PATCH /bookings/{id}', () => {
  it('updates attendee fields only, bumps updated_at and records BOOKING_UPDATED with the new data', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-02-01T10:00:00Z' });
    const res = await t.request('PATCH', `/v1/bookings/${id}`, {
      key: KEYS.secret,
      body: { attendee: { name: 'Grace Hopper', phone: '+1 555 0100', timezone: 'America/New_York' } },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.booking.attendee, {
      name: 'Grace Hopper',
      email: 'seed@example.com',
      phone: '+1 555 0100',
      timezone: 'America/New_York',
    });
    const events = await eventsOf(t, id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['BOOKING_UPDATED'],
    );
    assert.equal((events[0].data.attendee as { name: string }).name, 'Grace Hopper');
    // the event's timestamp is the change's own updated_at, so events order as the changes did
    assert.equal((await eventStamps(t, id))[0].at, res.body.booking.updated_at);
    // the usual national spellings too
    for (const phone of ['(555) 123-4567', '555.123.4567', '020 7946 0958']) {
      const again = await t.request('PATCH', `/v1/bookings/${id}`, { key: KEYS.secret, body: { attendee: { phone } } });
      assert.equal(again.status, 200, `${phone}: ${again.text}`);
      assert.equal(again.body.booking.attendee.phone, phone);
    }
  });

  it('an email change is accepted (and triggers the fresh confirmation)', async () => {
    const id = await seedBooking(t, { status: 'PENDING_CONFIRMATION', start: '2027-02-01T12:00:00Z' });
    const res = await t.request('PATCH', `/v1/bookings/${id}`, { key: KEYS.secret, body: { attendee: { email: 'new@example.com' } } });
    assert.equal(res.status, 200, res.text);
    assert.equal((await get(id)).attendee.email, 'new@example.com');
  });

  const bad: [string, unknown, string][] = [
    ['no fields', {}, 'attendee'],
    ['empty attendee', { attendee: {} }, 'attendee'],
    ['start_time', { start_time: '2027-02-02T10:00:00Z' }, 'start_time'],
    ['startTime (alias)', { startTime: '2027-02-02T10:00:00Z' }, 'start_time'],
    ['status', { status: 'CANCELLED' }, 'status'],
    ['event_type_id', { event_type_id: 'et_onboarding' }, 'event_type_id'],
    ['team_id', { team_id: 'team_support' }, 'team_id'],
    ['api_key_id', { api_key_id: 'key_1' }, 'api_key_id'],
    ['a disallowed field next to a good one', { attendee: { name: 'X' }, status: 'CANCELLED' }, 'status'],
    ['an unknown attendee field', { attendee: { company: 'X' } }, 'attendee.company'],
    ['a bad email', { attendee: { email: 'nope' } }, 'attendee.email'],
    ['a blank name', { attendee: { name: '' } }, 'attendee.name'],
    ['a bad time zone', { attendee: { timezone: 'Nowhere/City' } }, 'attendee.timezone'],
    ['attendee not an object', { attendee: 'x' }, 'attendee'],
  ];
  for (const [name, body, field] of bad) {
    it(`400 for ${name}, and nothing changes`, async () => {
      const id = await seedBooking(t, {
        status: 'SCHEDULED',
        start: `2027-02-0${3 + (bad.findIndex((b) => b[0] === name) % 5)}T${String(bad.findIndex((b) => b[0] === name)).padStart(2, '0')}:00:00Z`,
      });
      const before = await get(id);
      expectError(await t.request('PATCH', `/v1/bookings/${id}`, { key: KEYS.secret, body }), 400, 'validation_error', field);
      assert.deepEqual(await get(id), before);
    });
  }

  // The schema's shape (the OpenAPI document carries it) with the messages a client can act on.
  const messages: [unknown, string, string][] = [
    [{}, 'attendee', 'field "attendee" is required: nothing to update'],
    [{ start_time: '2027-02-02T10:00:00Z' }, 'start_time', 'field "start_time" cannot be changed: PATCH updates attendee details only'],
    [{ attendee: { name: 'X' }, status: 'CANCELLED' }, 'status', 'field "status" cannot be changed: PATCH updates attendee details only'],
    [{ attendee: {} }, 'attendee', 'field "attendee" has no fields to update'],
    [
      { attendee: { name: 'X', company: 'Y' } },
      'attendee.company',
      'field "attendee.company" cannot be changed: allowed are name, email, phone, timezone',
    ],
    [{ attendee: 'x' }, 'attendee', 'field "attendee" must be an object'],
    [{ attendee: { name: 5 } }, 'attendee.name', 'field "attendee.name" must be string'],
    [{ attendee: { email: 'nope' } }, 'attendee.email', 'field "attendee.email" must be an email address'],
    [[], 'body', 'field "body" must be a JSON object with "attendee"'],
    [null, 'body', 'field "body" must be a JSON object with "attendee"'],
  ];
  it('400 messages name the field and say what is allowed', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-02-08T15:00:00Z' });
    for (const [body, field, message] of messages) {
      const res = await t.request('PATCH', `/v1/bookings/${id}`, { key: KEYS.secret, rawBody: JSON.stringify(body) });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual([res.body.error.field, res.body.error.message], [field, message], JSON.stringify(body));
    }
    const empty = await t.request('PATCH', `/v1/bookings/${id}`, {
      key: KEYS.secret,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(empty.body.error.message, 'field "body" must be a JSON object with "attendee"', 'no body at all');
  });

  it('the OpenAPI document carries the PATCH body: attendee fields, at least one, nothing else', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    const ref = doc.paths['/v1/bookings/{id}'].patch.requestBody.content['application/json'].schema;
    assert.equal(ref.$ref, '#/components/schemas/UpdateBookingRequest', 'a named schema');
    const body = doc.components.schemas.UpdateBookingRequest;
    assert.deepEqual(body.required, ['attendee']);
    assert.equal(body.additionalProperties, false);
    const attendee = body.properties.attendee;
    assert.deepEqual(Object.keys(attendee.properties), ['name', 'email', 'phone', 'timezone']);
    assert.equal(attendee.minProperties, 1);
    assert.equal(attendee.additionalProperties, false);
  });

  it('409 when another change holds the booking longer than the lock timeout (concurrent modification)', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-02-09T10:00:00Z' });
    const other = new pg.Client({ connectionString: t.db.url });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select 1 from bookings where id = $1 for update', [id]);
      const res = await t.request('PATCH', `/v1/bookings/${id}`, { key: KEYS.secret, body: { attendee: { name: 'Late' } } });
      expectError(res, 409, 'conflict');
    } finally {
      await other.query('rollback');
      await other.end();
    }
    assert.equal((await get(id)).attendee.name, 'Seed');
  });
});

describe('DELETE /bookings/{id}', () => {
  it('cancels with a reason, frees the member, records BOOKING_CANCELLED; the slot can be booked again', async () => {
    const a = await created(t, introBody('2026-12-02T10:00:00Z'));
    const b = await created(t, introBody('2026-12-02T10:00:00Z'));
    assert.equal((await create(t, introBody('2026-12-02T10:00:00Z'))).status, 409);
    const res = await t.request('DELETE', `/v1/bookings/${a.id}`, { key: KEYS.secret, body: { reason: 'Customer asked' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.booking.status, 'CANCELLED');
    assert.equal(res.body.booking.cancellation_reason, 'Customer asked');
    assert.equal(res.body.booking.cancelled_at, NOW.toISOString());
    assert.deepEqual(await activeHolds(t, a.id), []);
    assert.deepEqual(await types(a.id), ['BOOKING_CANCELLED', 'BOOKING_CREATED']);
    assert.equal((await create(t, introBody('2026-12-02T10:00:00Z'))).status, 201, 'the freed member takes the slot again');
    assert.equal((await get(b.id)).status, 'DRAFT');
  });

  it('cancels without a body; a second cancel is 409', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-02-10T10:00:00Z' });
    const first = await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.booking.cancellation_reason, null);
    expectError(await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret }), 409, 'conflict');
  });

  it('400 for a reason over 500 characters', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-02-10T12:00:00Z' });
    expectError(
      await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret, body: { reason: 'x'.repeat(501) } }),
      400,
      'validation_error',
      'reason',
    );
    expectError(
      await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret, body: { reason: '😀'.repeat(501) } }),
      400,
      'validation_error',
      'reason',
    );
    assert.equal((await get(id)).status, 'SCHEDULED');
  });

  it('counts a reason in characters: 500 of them are taken though they take 750 UTF-16 units', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-02-10T14:00:00Z' });
    const reason = 'x'.repeat(250) + '😀'.repeat(250);
    const res = await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret, body: { reason } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.booking.cancellation_reason, reason);
  });

  it('422 terminal_state on COMPLETED and NO_SHOW', async () => {
    for (const [i, status] of ['COMPLETED', 'NO_SHOW'].entries()) {
      const id = await seedBooking(t, { status, start: `2027-02-11T1${i}:00:00Z` });
      expectError(await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret }), 422, 'terminal_state');
    }
  });

  it('422 cancellation_cutoff_passed inside the 720-minute cutoff; a pending request may still be withdrawn', async () => {
    const soon = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-01T15:00:00Z' });
    expectError(await t.request('DELETE', `/v1/bookings/${soon}`, { key: KEYS.secret }), 422, 'cancellation_cutoff_passed');
    const edge = await seedBooking(t, { status: 'RESCHEDULED', start: '2026-12-01T18:00:00Z' }); // exactly 720 min ahead
    expectError(await t.request('DELETE', `/v1/bookings/${edge}`, { key: KEYS.secret }), 422, 'cancellation_cutoff_passed');
    const fine = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-01T18:15:00Z', member: MEMBERS.jonas });
    assert.equal((await t.request('DELETE', `/v1/bookings/${fine}`, { key: KEYS.secret })).status, 200);
    const pending = await seedBooking(t, { status: 'PENDING_CONFIRMATION', start: '2026-12-01T16:00:00Z' });
    assert.equal((await t.request('DELETE', `/v1/bookings/${pending}`, { key: KEYS.secret })).status, 200);
  });

  it('a DRAFT that routing is about to schedule is guarded like SCHEDULED; a DRAFT of a type requiring confirmation is not', async () => {
    // et_intro_call needs no confirmation: the answer must not depend on whether routing ran yet
    const draft = await seedBooking(t, { status: 'DRAFT', start: '2026-12-01T15:30:00Z', member: MEMBERS.jonas });
    expectError(await t.request('DELETE', `/v1/bookings/${draft}`, { key: KEYS.secret }), 422, 'cancellation_cutoff_passed');
    assert.equal((await get(draft)).status, 'DRAFT');
    // et_planning_session requires confirmation: its DRAFT is a request on its way to the host
    const request = await seedBooking(t, {
      status: 'DRAFT',
      eventTypeId: 'et_planning_session',
      start: '2026-12-01T16:30:00Z',
      member: MEMBERS.amara,
    });
    assert.equal((await t.request('DELETE', `/v1/bookings/${request}`, { key: KEYS.secret })).status, 200);
  });

  it('422 cancellation_disabled when the organization turned cancellations off', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-02-12T10:00:00Z' });
    await t.db.pool.query(`update organizations set cancellation_enabled = false where id = 'org_northwind'`);
    try {
      expectError(await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret }), 422, 'cancellation_disabled');
    } finally {
      await t.db.pool.query(`update organizations set cancellation_enabled = true where id = 'org_northwind'`);
    }
    assert.equal((await get(id)).status, 'SCHEDULED');
  });
});

describe('POST /bookings/{id}/reschedule', () => {
  it('moves to a listed slot: new RESCHEDULED booking, old CANCELLED, same member kept, one BOOKING_RESCHEDULED', async () => {
    const old = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-03T10:00:00Z', member: MEMBERS.jonas, externalId: 'move-me' });
    const res = await t.request('POST', `/v1/bookings/${old}/reschedule`, {
      key: KEYS.secret,
      body: { start_time: '2026-12-03T11:00:00Z', reason: 'clash' },
    });
    assert.equal(res.status, 200, res.text);
    const fresh = res.body.booking;
    assert.equal(fresh.status, 'RESCHEDULED');
    assert.equal(fresh.start_time, '2026-12-03T11:00:00.000Z');
    assert.equal(fresh.end_time, '2026-12-03T11:30:00.000Z');
    assert.equal(fresh.rescheduled_from, old);
    assert.equal(fresh.assigned_to_id, MEMBERS.jonas);
    assert.deepEqual(fresh.host_ids, [MEMBERS.jonas]);
    assert.equal(fresh.external_id, 'move-me', 'the external id follows the active booking');
    assert.deepEqual(fresh.custom_fields, { company: 'Seeded' });
    const was = await get(old);
    assert.equal(was.status, 'CANCELLED');
    assert.equal(was.rescheduled_to, fresh.id);
    assert.equal(was.cancellation_reason, 'clash');
    assert.equal(was.external_id, null);
    assert.deepEqual(await activeHolds(t, old), []);
    assert.deepEqual(await activeHolds(t, fresh.id), [MEMBERS.jonas]);
    const events = await eventsOf(t, fresh.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['BOOKING_RESCHEDULED'],
    );
    assert.equal(events[0].data.rescheduled_from, old);
    assert.equal((await eventStamps(t, fresh.id))[0].at, fresh.updated_at, "stamped with the new booking's updated_at");
    const byExternal = await t.request('GET', '/v1/bookings/external/move-me', { key: KEYS.secret });
    assert.equal(byExternal.body.booking.id, fresh.id);
  });

  it("the booking's own interval does not block its new time (only one host works on Fridays)", async () => {
    const b = await created(t, introBody('2026-12-04T10:00:00Z'));
    assert.deepEqual(await activeHolds(t, b.id), [MEMBERS.amara]);
    await t.db.pool.query(`update bookings set status = 'SCHEDULED', assigned_to_id = $2, host_ids = array[$2::uuid] where id = $1`, [
      b.id,
      MEMBERS.amara,
    ]);
    const res = await t.request('POST', `/v1/bookings/${b.id}/reschedule`, {
      key: KEYS.secret,
      body: { startTime: '2026-12-04T10:15:00Z' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.booking.assigned_to_id, MEMBERS.amara);
    assert.deepEqual(await activeHolds(t, res.body.booking.id), [MEMBERS.amara]);
  });

  it('another free host takes it when the member is busy then, with ASSIGNMENT_CHANGED', async () => {
    const old = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-03T09:00:00Z', member: MEMBERS.amara });
    await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-03T13:00:00Z', member: MEMBERS.amara });
    const res = await t.request('POST', `/v1/bookings/${old}/reschedule`, {
      key: KEYS.secret,
      body: { start_time: '2026-12-03T13:00:00Z' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.booking.assigned_to_id, MEMBERS.jonas);
    assert.deepEqual((await eventsOf(t, res.body.booking.id)).map((e) => e.type).sort(), ['ASSIGNMENT_CHANGED', 'BOOKING_RESCHEDULED']);
  });

  it('409 for a taken, off-grid or out-of-hours slot; 400 for a past, missing or malformed start_time or a long reason', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-08T09:00:00Z', member: MEMBERS.amara });
    await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-08T14:00:00Z', member: MEMBERS.amara });
    await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-08T14:00:00Z', member: MEMBERS.jonas });
    const move = (body: unknown) => t.request('POST', `/v1/bookings/${id}/reschedule`, { key: KEYS.secret, body });
    expectError(await move({ start_time: '2026-12-08T14:00:00Z' }), 409, 'conflict');
    expectError(await move({ start_time: '2026-12-08T14:05:00Z' }), 409, 'conflict');
    expectError(await move({ start_time: '2026-12-08T22:00:00Z' }), 409, 'conflict');
    expectError(await move({ start_time: '2026-11-30T10:00:00Z' }), 400, 'validation_error', 'start_time');
    expectError(await move({}), 400, 'validation_error', 'start_time');
    expectError(await move({ start_time: 'soon' }), 400, 'validation_error', 'start_time');
    expectError(await move({ start_time: '2026-12-08T10:00:00Z', reason: 'x'.repeat(501) }), 400, 'validation_error', 'reason');
    assert.equal((await get(id)).status, 'SCHEDULED');
    assert.equal((await activeHolds(t, id)).length, 1);
  });

  it('confirm moves the RESCHEDULED booking to SCHEDULED', async () => {
    const old = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-10T09:00:00Z' });
    const moved = await t.request('POST', `/v1/bookings/${old}/reschedule`, {
      key: KEYS.secret,
      body: { start_time: '2026-12-10T10:00:00Z' },
    });
    const mails = async () =>
      (await t.db.pool.query('select count(*)::int as n from email_outbox where booking_id = $1', [moved.body.booking.id])).rows[0]
        .n as number;
    const sent = await mails();
    assert.ok(sent > 0, 'the reschedule invited everyone');
    const res = await t.request('POST', `/v1/bookings/${moved.body.booking.id}/confirm`, { key: KEYS.secret });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.booking.status, 'SCHEDULED');
    assert.equal(await mails(), sent, "nothing new to tell: the reschedule's invitation stands");
  });
});

describe('confirm, complete, no-show side effects', () => {
  it('complete records BOOKING_COMPLETED and frees the member; a repeat is 200 without a second event', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-03-01T10:00:00Z' });
    assert.equal((await t.request('POST', `/v1/bookings/${id}/complete`, { key: KEYS.secret })).status, 200);
    assert.equal((await t.request('POST', `/v1/bookings/${id}/complete`, { key: KEYS.secret })).status, 200);
    assert.deepEqual(await types(id), ['BOOKING_COMPLETED']);
    assert.deepEqual(await activeHolds(t, id), []);
  });

  it('no-show records BOOKING_NO_SHOW, even before the start (no time condition)', async () => {
    const id = await seedBooking(t, { status: 'RESCHEDULED', start: '2027-03-01T12:00:00Z' });
    const res = await t.request('POST', `/v1/bookings/${id}/no-show`, { key: KEYS.secret });
    assert.equal(res.body.booking.status, 'NO_SHOW');
    assert.deepEqual(await types(id), ['BOOKING_NO_SHOW']);
  });

  it('confirm keeps the hold and is idempotent', async () => {
    const id = await seedBooking(t, { status: 'PENDING_CONFIRMATION', start: '2027-03-01T14:00:00Z' });
    const first = await t.request('POST', `/v1/bookings/${id}/confirm`, { key: KEYS.secret });
    const again = await t.request('POST', `/v1/bookings/${id}/confirm`, { key: KEYS.secret });
    assert.equal(first.body.booking.status, 'SCHEDULED');
    assert.equal(again.status, 200);
    assert.equal(again.body.booking.updated_at, first.body.booking.updated_at, 'no second change');
    assert.equal((await activeHolds(t, id)).length, 1);
  });
});

describe('security and tenancy on every change endpoint', () => {
  const endpoints: [string, (id: string) => string, unknown][] = [
    ['PATCH', (id) => `/v1/bookings/${id}`, { attendee: { name: 'X' } }],
    ['DELETE', (id) => `/v1/bookings/${id}`, undefined],
    ['POST', (id) => `/v1/bookings/${id}/reschedule`, { start_time: '2026-12-15T10:00:00Z' }],
    ['POST', (id) => `/v1/bookings/${id}/confirm`, undefined],
    ['POST', (id) => `/v1/bookings/${id}/complete`, undefined],
    ['POST', (id) => `/v1/bookings/${id}/no-show`, undefined],
  ];
  for (const [method, path, body] of endpoints) {
    it(`${method} ${path(':id')}: 401 without key, 403 without bookings:write or with a publishable key, 404 across organization, mode or id`, async () => {
      const id = await seedBooking(t, {
        status: 'PENDING_CONFIRMATION',
        start: `2027-04-0${1 + endpoints.findIndex((e) => e[1] === path)}T10:00:00Z`,
      });
      expectError(await t.request(method, path(id), { body }), 401, 'unauthorized');
      expectError(await t.request(method, path(id), { key: KEYS.readOnly, body }), 403, 'forbidden');
      expectError(await t.request(method, path(id), { key: KEYS.publishableAnyOrigin, body }), 403, 'forbidden');
      expectError(await t.request(method, path(id), { key: KEYS.other, body }), 404, 'not_found');
      expectError(await t.request(method, path(id), { key: KEYS.live, body }), 404, 'not_found');
      expectError(await t.request(method, path('bkg_does_not_exist'), { key: KEYS.secret, body }), 404, 'not_found');
      const after = await get(id);
      assert.equal(after.status, 'PENDING_CONFIRMATION');
      assert.equal(after.attendee.name, 'Seed');
    });
  }
});
