import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { ADVISORS, NOW, activeHolds, create, created, introBody } from './bookings-helpers.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
});
after(async () => {
  await t.close();
});

async function expectError(
  res: { status: number; body: { error: { code: string; field?: string; message: string } } },
  status: number,
  code: string,
  field?: string,
) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code);
  if (field) {
    assert.equal(res.body.error.field, field);
    assert.match(res.body.error.message, new RegExp(field.replace('.', '\\.')));
  }
}

describe('POST /bookings: happy path', () => {
  it('201 with the booking in DRAFT, a hold, BOOKING_CREATED and a routing job in the same commit', async () => {
    const res = await create(t, introBody('2026-12-02T10:00:00Z', { metadata: { crm: 'A-1', score: 3 }, external_id: 'ext-1' }));
    assert.equal(res.status, 201, res.text);
    const b = res.body.booking;
    assert.equal(res.body.success, true);
    assert.equal(b.status, 'DRAFT');
    assert.match(b.id, /^bkg_[0-9a-f]{24}$/);
    assert.equal(b.event_type_id, 'et_intro_call');
    assert.equal(b.start_time, '2026-12-02T10:00:00.000Z');
    assert.equal(b.end_time, '2026-12-02T10:30:00.000Z');
    assert.deepEqual(b.attendee, { name: 'Ada Lovelace', email: 'ada@example.com', phone: null, timezone: 'Europe/London' });
    assert.deepEqual(b.custom_fields, { company: 'Analytical Engines' });
    assert.deepEqual(b.metadata, { crm: 'A-1', score: 3 });
    assert.equal(b.external_id, 'ext-1');
    assert.equal(b.assigned_to_id, null);
    assert.equal(b.livemode, false);
    assert.equal(res.body.idempotent_replay, undefined);
    const holds = await activeHolds(t, b.id);
    assert.equal(holds.length, 1);
    assert.ok(ADVISORS.includes(holds[0]));
    const during = await t.db.pool.query(`select lower(during) as lo, upper(during) as hi from booking_members where booking_id = $1`, [
      b.id,
    ]);
    assert.equal(during.rows[0].lo.toISOString(), '2026-12-02T10:00:00.000Z');
    assert.equal(during.rows[0].hi.toISOString(), '2026-12-02T10:40:00.000Z', 'buffer_after 10 widens the hold');
    const events = await t.db.pool.query(`select type, payload from booking_events where booking_id = $1`, [b.id]);
    assert.deepEqual(
      events.rows.map((r) => r.type),
      ['BOOKING_CREATED'],
    );
    assert.equal(events.rows[0].payload.data.id, b.id);
    // stamped with the database's clock, as every later change of the booking is
    assert.equal(events.rows[0].payload.timestamp, b.created_at);
    const jobs = await t.db.pool
      .query(`select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
        where k.identifier = 'route-booking'`);
    assert.ok(jobs.rows.some((r) => r.payload.bookingId === b.id));
  });

  it('drops unknown custom-field keys, accepts the camelCase aliases and a publishable key', async () => {
    const res = await create(
      t,
      {
        eventTypeId: 'et_intro_call',
        requestedTime: '2026-12-02T11:00:00Z',
        attendee: { name: 'Bo', email: 'bo@example.com', phone: '+1 (555) 010-9999' },
        custom_fields: { company: 'X', topic: 'pensions', unknown_key: 'dropped' },
      },
      KEYS.publishableAnyOrigin,
    );
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.booking.custom_fields, { company: 'X', topic: 'pensions' });
    assert.equal(res.body.booking.attendee.phone, '+1 (555) 010-9999');
  });

  it('a publishable key from an allowed origin may create; another origin is 403', async () => {
    const ok = await t.request('POST', '/v1/bookings', {
      key: KEYS.publishable,
      body: introBody('2026-12-02T12:00:00Z'),
      headers: { origin: 'http://localhost:3000' },
    });
    assert.equal(ok.status, 201, ok.text);
    const bad = await t.request('POST', '/v1/bookings', {
      key: KEYS.publishable,
      body: introBody('2026-12-02T12:00:00Z'),
      headers: { origin: 'https://evil.example' },
    });
    await expectError(bad, 403, 'forbidden');
  });

  it('COLLECTIVE holds every host', async () => {
    const b = await created(t, {
      event_type_id: 'et_planning_session',
      requested_time: '2026-12-03T10:00:00Z',
      attendee: { name: 'C', email: 'c@example.com' },
    });
    assert.deepEqual(await activeHolds(t, b.id), ADVISORS);
  });

  it('assign_to a free host holds that host', async () => {
    const b = await created(t, introBody('2026-12-02T13:00:00Z', { assign_to: MEMBERS.amara }));
    assert.deepEqual(await activeHolds(t, b.id), [MEMBERS.amara]);
  });

  it('assign_to compares ids as GET /availability does: an uppercase uuid is the same member', async () => {
    const b = await created(t, introBody('2026-12-02T14:00:00Z', { assign_to: MEMBERS.jonas.toUpperCase() }));
    assert.deepEqual(await activeHolds(t, b.id), [MEMBERS.jonas]);
  });
});

describe('POST /bookings: validation names the field (400)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['missing event_type_id', { event_type_id: undefined }, 'event_type_id'],
    ['unknown event type', { event_type_id: 'et_nope' }, 'event_type_id'],
    ["another organization's event type", { event_type_id: 'et_globex_demo' }, 'event_type_id'],
    ['missing requested_time', { requested_time: undefined }, 'requested_time'],
    ['requested_time not a date-time', { requested_time: 'tomorrow' }, 'requested_time'],
    ['requested_time an impossible date', { requested_time: '2026-11-31T10:00:00Z' }, 'requested_time'],
    ['requested_time with a space for the T', { requested_time: '2026-12-07 10:00:00Z' }, 'requested_time'],
    ['requested_time in the past', { requested_time: '2026-11-30T10:00:00Z' }, 'requested_time'],
    ['requested_time past year 9998', { requested_time: '9999-12-30T10:00:00Z' }, 'requested_time'],
    ['requested_time past year 9998 in UTC', { requested_time: '9998-12-31T23:00:00-05:00' }, 'requested_time'],
    ['missing attendee', { attendee: undefined }, 'attendee'],
    ['missing attendee name', { attendee: { email: 'a@example.com' } }, 'attendee.name'],
    ['blank attendee name', { attendee: { name: '  ', email: 'a@example.com' } }, 'attendee.name'],
    ['attendee name of 201 characters', { attendee: { name: '😀'.repeat(201), email: 'a@example.com' } }, 'attendee.name'],
    ['missing attendee email', { attendee: { name: 'A' } }, 'attendee.email'],
    ['bad email', { attendee: { name: 'A', email: 'not-an-email' } }, 'attendee.email'],
    ['email with two dots in a row', { attendee: { name: 'A', email: 'a@x..example' } }, 'attendee.email'],
    ['email starting with a dot', { attendee: { name: 'A', email: '.a@example.com' } }, 'attendee.email'],
    ['email with a domain label starting with a hyphen', { attendee: { name: 'A', email: 'a@-x.example' } }, 'attendee.email'],
    ['email to an IP literal', { attendee: { name: 'A', email: 'a@[127.0.0.1]' } }, 'attendee.email'],
    ['bad phone', { attendee: { name: 'A', email: 'a@example.com', phone: 'abc' } }, 'attendee.phone'],
    ['phone with too few digits', { attendee: { name: 'A', email: 'a@example.com', phone: '(1) 2-3.4' } }, 'attendee.phone'],
    ['bad timezone', { attendee: { name: 'A', email: 'a@example.com', timezone: 'Mars/Olympus' } }, 'attendee.timezone'],
    ['a UTC offset for a timezone', { attendee: { name: 'A', email: 'a@example.com', timezone: '+01:00' } }, 'attendee.timezone'],
    ['required custom field missing', { custom_fields: {} }, 'custom_fields.company'],
    ['SELECT value not an option', { custom_fields: { company: 'X', topic: 'crypto' } }, 'custom_fields.topic'],
    ['TEXT value not a string', { custom_fields: { company: { a: 1 } } }, 'custom_fields.company'],
    ['TEXT value of 501 characters', { custom_fields: { company: '😀'.repeat(501) } }, 'custom_fields.company'],
    ['metadata not an object', { metadata: 'x' }, 'metadata'],
    ['metadata an array', { metadata: [1, 2] }, 'metadata'],
    ['metadata with a key of 41 characters', { metadata: { ['k'.repeat(41)]: 1 } }, 'metadata'],
    ['metadata with an empty key', { metadata: { '': 1 } }, 'metadata'],
    ['metadata over 16 KB as JSON', { metadata: { a: 'x'.repeat(16 * 1024) } }, 'metadata'],
    ['metadata with 51 keys', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'metadata'],
    ['external_id over 255', { external_id: 'x'.repeat(256) }, 'external_id'],
    ['assign_to not a host of the type', { assign_to: MEMBERS.priya }, 'assign_to'],
    ["assign_to another organization's member", { assign_to: MEMBERS.otherOrg }, 'assign_to'],
    ['assign_to not an id', { assign_to: 'someone' }, 'assign_to'],
  ];
  for (const [name, patch, field] of cases) {
    it(name, async () => {
      const body: Record<string, unknown> = { ...introBody('2026-12-07T10:00:00Z'), ...patch };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      await expectError(await create(t, body), 400, 'validation_error', field);
    });
  }

  it('counts text in characters: a name of 200 emoji and a TEXT field of 500 are taken, though twice as long in UTF-16', async () => {
    const body = {
      ...introBody('2026-12-10T13:00:00Z'),
      attendee: { name: '😀'.repeat(200), email: 'a@example.com' },
      custom_fields: { company: '😀'.repeat(500) },
    };
    const res = await create(t, body);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.booking.attendee.name, '😀'.repeat(200));
    assert.equal(res.body.booking.custom_fields.company, '😀'.repeat(500));
    assert.equal((await t.request('DELETE', `/v1/bookings/${res.body.booking.id}`, { key: KEYS.secret })).status, 200);
  });

  it('malformed JSON is 400, and nothing was stored by any refused request', async () => {
    const res = await t.request('POST', '/v1/bookings', { key: KEYS.secret, rawBody: '{"event_type_id":' });
    await expectError(res, 400, 'validation_error');
    const n = await t.db.pool.query(`select count(*)::int as n from bookings where start_time = '2026-12-07T10:00:00Z'`);
    assert.equal(n.rows[0].n, 0);
  });
});

describe('POST /bookings: email addresses and time zones, one rule everywhere', () => {
  it('an internationalized address is taken and found by the list filter; a zone name in any case is stored as IANA writes it', async () => {
    const attendee = { name: 'Zoë', email: 'zoë@bücher.example', timezone: 'europe/london' };
    const res = await create(t, introBody('2026-12-11T10:00:00Z', { attendee }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.booking.attendee, { ...attendee, phone: null, timezone: 'Europe/London' });
    const q = encodeURIComponent(attendee.email);
    const found = await t.request('GET', `/v1/bookings?attendee_email=${q}`, { key: KEYS.secret });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(
      found.body.bookings.map((b: { id: string }) => b.id),
      [res.body.booking.id],
    );
  });

  it('an address a booking may not have is refused by the list filter too', async () => {
    for (const email of ['a@x..example', '.a@example.com', 'a@[127.0.0.1]']) {
      const res = await t.request('GET', `/v1/bookings?attendee_email=${encodeURIComponent(email)}`, { key: KEYS.secret });
      assert.equal(res.status, 400, email);
      assert.equal(res.body.error.field, 'attendee_email');
    }
  });
});

describe('POST /bookings: the last days a client may name', () => {
  it('the last slot listed before 9999 is booked; its days around it are written', async () => {
    const listed = await t.request('GET', '/v1/availability?event_type_id=et_intro_call&start_date=9998-12-24&end_date=9998-12-31', {
      key: KEYS.secret,
    });
    assert.equal(listed.status, 200, listed.text);
    const last: string = listed.body.slots.at(-1).start;
    assert.match(last, /^9998-12-3/);
    const res = await create(t, introBody(last));
    assert.equal(res.status, 201, res.text);
    const beyond = await t.request('GET', '/v1/availability?event_type_id=et_intro_call&start_date=9998-12-31&end_date=9999-01-01', {
      key: KEYS.secret,
    });
    await expectError(beyond, 400, 'validation_error', 'end_date');
  });
});

describe('the first days a client may name (year 0001)', () => {
  it('availability, members available and free/busy answer them, though the days around them would fall before year 1', async () => {
    for (const path of [
      '/v1/availability?event_type_id=et_intro_call&start_date=0001-01-01&end_date=0001-01-03',
      '/v1/team/members/available?date=0001-01-01',
      `/v1/freebusy/${MEMBERS.amara}?start=0001-01-01T00:00:00Z&end=0001-01-02T00:00:00Z`,
    ]) {
      const res = await t.request('GET', path, { key: KEYS.secret });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    const before = await t.request('GET', '/v1/availability?event_type_id=et_intro_call&start_date=0000-12-31&end_date=0001-01-01', {
      key: KEYS.secret,
    });
    await expectError(before, 400, 'validation_error', 'start_date');
  });
});

describe('POST /bookings: metadata (decisions.md §8)', () => {
  it('any JSON values are stored and returned exactly as sent, by create, read and list', async () => {
    const metadata = {
      crm: { id: 'A-1', tags: ['vip', 'eu'], owner: null, score: 3.25, nested: { deep: [[1, 2], { x: true }] } },
      empty: {},
      list: [],
      flag: false,
      nothing: null,
      n: -0.5,
      s: 'é✓',
      ['k'.repeat(40)]: 1,
    };
    const res = await create(t, introBody('2026-12-15T10:00:00Z', { metadata }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.booking.metadata, metadata);
    const read = await t.request('GET', `/v1/bookings/${res.body.booking.id}`, { key: KEYS.secret });
    assert.deepEqual(read.body.booking.metadata, metadata);
    const listed = await t.request('GET', '/v1/bookings?start_date=2026-12-15&end_date=2026-12-16', { key: KEYS.secret });
    assert.deepEqual(listed.body.bookings.find((b: { id: string }) => b.id === res.body.booking.id).metadata, metadata);
  });

  it('the text comes back as sent: key order and number literals, by create, read, list, replay, event and reschedule', async () => {
    // JSON.parse would read these numbers as doubles (…567000, 1, 1000, 0, 0.1, 1e-7) and jsonb
    // would sort the keys shorter-first; keys that are array indexes ("7") are the one exception
    // (docs/bookings.md), so none is used here
    const text =
      '{"zeta":{"b":2,"a":1},"id":12345678901234567890,"price":1.0,"big":1e3,"negzero":-0,' +
      '"exact":0.1000000000000000055511151231257827,"tiny":0.0000001,"list":[1.50,{"y":null,"x":[2.0]}],"plain":3.25,"s":"1e5"}';
    const body = JSON.stringify(introBody('2026-12-16T10:00:00Z')).replace(/}$/, `,"metadata":${text}}`);
    const res = await t.request('POST', '/v1/bookings', { key: KEYS.secret, rawBody: body, headers: { 'Idempotency-Key': 'exact-1' } });
    assert.equal(res.status, 201, res.text);
    const id = res.body.booking.id as string;
    const sent = `"metadata":${text}`;
    assert.ok(res.text.includes(sent), res.text);
    const read = await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.secret });
    assert.ok(read.text.includes(sent), read.text);
    const listed = await t.request('GET', '/v1/bookings?start_date=2026-12-16&end_date=2026-12-17', { key: KEYS.secret });
    assert.ok(listed.text.includes(sent), listed.text);
    const replay = await t.request('POST', '/v1/bookings', { key: KEYS.secret, rawBody: body, headers: { 'Idempotency-Key': 'exact-1' } });
    assert.equal(replay.body.booking.idempotent_replay, true);
    assert.ok(replay.text.includes(sent), replay.text);
    // the same numbers written another way are another request for the key
    const other = await t.request('POST', '/v1/bookings', {
      key: KEYS.secret,
      rawBody: body.replace('"price":1.0', '"price":1'),
      headers: { 'Idempotency-Key': 'exact-1' },
    });
    assert.equal(other.status, 422, other.text);
    // the event's payload (every webhook's `data`) holds the same text
    const event = await t.db.pool.query(`select payload::text as p from booking_events where booking_id = $1`, [id]);
    assert.ok(event.rows[0].p.includes(sent), event.rows[0].p);
    // a reschedule's new booking carries it on
    const [host] = await activeHolds(t, id); // routed as the worker would (this file runs none)
    await t.db.pool.query(`update bookings set status = 'SCHEDULED', assigned_to_id = $2, host_ids = array[$2::uuid] where id = $1`, [
      id,
      host,
    ]);
    const moved = await t.request('POST', `/v1/bookings/${id}/reschedule`, {
      key: KEYS.secret,
      body: { start_time: '2026-12-16T11:00:00Z' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.ok(moved.text.includes(sent), moved.text);
    // and so do the events a change records (record_events, beside create_booking's own)
    const changed = await t.db.pool.query(
      `select type, payload::text as p from booking_events where booking_id = any($1) and type <> 'BOOKING_CREATED'`,
      [[id, moved.body.booking.id]],
    );
    assert.ok(changed.rows.length >= 1, 'the reschedule recorded its events');
    for (const e of changed.rows) assert.ok(e.p.includes(sent), `${e.type}: ${e.p}`);
  });

  it('a number kept as written is a leaf: it may sit as deep as any number', async () => {
    const text = `{"a":${'['.repeat(30)}12345678901234567890${']'.repeat(30)}}`;
    const body = JSON.stringify(introBody('2026-12-16T12:00:00Z')).replace(/}$/, `,"metadata":${text}}`);
    const res = await t.request('POST', '/v1/bookings', { key: KEYS.secret, rawBody: body });
    assert.equal(res.status, 201, res.text);
    assert.ok(res.text.includes(`"metadata":${text}`), res.text);
  });

  it('metadata thousands of levels deep is refused for its depth, a kept literal in it or not', async () => {
    for (const leaf of ['1', '1.0']) {
      const text = `{"a":${'['.repeat(10_000)}${leaf}${']'.repeat(10_000)}}`;
      const body = JSON.stringify(introBody('2026-12-16T13:00:00Z')).replace(/}$/, `,"metadata":${text}}`);
      const res = await t.request('POST', '/v1/bookings', { key: KEYS.secret, rawBody: body });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.error.message, /nested more than 32 levels/, leaf);
    }
  });

  it('keys are counted in characters as people count them: 40 emoji are a key of 40', async () => {
    const metadata = { ['😀'.repeat(40)]: 1 };
    const res = await create(t, introBody('2026-12-15T11:00:00Z', { metadata }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.booking.metadata, metadata);
    await expectError(
      await create(t, introBody('2026-12-15T11:30:00Z', { metadata: { ['😀'.repeat(41)]: 1 } })),
      400,
      'validation_error',
      'metadata',
    );
  });

  it('a number too large for a double, or a __proto__ key, is refused naming metadata, never changed', async () => {
    const raw = (metadata: string) =>
      t.request('POST', '/v1/bookings', {
        key: KEYS.secret,
        rawBody: JSON.stringify(introBody('2026-12-15T12:00:00Z')).replace(/}$/, `,"metadata":${metadata}}`),
      });
    const huge = await raw('{"inf":1e999}');
    await expectError(huge, 400, 'validation_error', 'metadata');
    assert.match(huge.body.error.message, /too large/);
    const proto = await raw('{"__proto__":{"x":1}}');
    await expectError(proto, 400, 'validation_error', 'metadata');
    assert.match(proto.body.error.message, /__proto__/);
    // deeper down, the path names the object that holds it, as every body error does
    const nested = await raw('{"crm":{"tags":[{"__proto__":{}}]}}');
    assert.equal(nested.status, 400, nested.text);
    assert.equal(nested.body.error.field, 'metadata.crm.tags[0]');
    const n = await t.db.pool.query(`select count(*)::int as n from bookings where start_time = '2026-12-15T12:00:00Z'`);
    assert.equal(n.rows[0].n, 0);
  });
});

describe('POST /bookings: slot conflicts (409)', () => {
  const conflict = async (body: unknown) => expectError(await create(t, body), 409, 'conflict');

  it('off the slot grid, outside working hours, inside the minimum notice', async () => {
    await conflict(introBody('2026-12-08T10:05:00Z'));
    await conflict(introBody('2026-12-08T03:00:00Z'));
    await conflict(introBody('2026-12-05T10:00:00Z')); // Saturday
    await conflict(introBody('2026-12-01T07:00:00Z')); // 1 h ahead, notice is 2 h
  });

  it('a slot whose hosts are all taken: exactly two advisors, the third create is 409', async () => {
    const a = await created(t, introBody('2026-12-08T10:00:00Z'));
    const b = await created(t, introBody('2026-12-08T10:00:00Z'));
    const held = [...(await activeHolds(t, a.id)), ...(await activeHolds(t, b.id))].sort();
    assert.deepEqual(held, ADVISORS);
    await conflict(introBody('2026-12-08T10:00:00Z'));
    // the buffered interval also blocks an overlapping start (10:30 is inside 10:00–10:40)
    await conflict(introBody('2026-12-08T10:30:00Z'));
  });

  it('assign_to a host who is not free then is 409', async () => {
    await created(t, introBody('2026-12-08T12:00:00Z', { assign_to: MEMBERS.jonas }));
    await conflict(introBody('2026-12-08T12:00:00Z', { assign_to: MEMBERS.jonas }));
    const other = await created(t, introBody('2026-12-08T12:00:00Z', { assign_to: MEMBERS.amara }));
    assert.deepEqual(await activeHolds(t, other.id), [MEMBERS.amara]);
  });

  it('the per-day cap of a member (Jonas: 4) makes the fifth booking that day 409', async () => {
    for (const h of ['07', '08', '09', '10']) await created(t, introBody(`2026-12-09T${h}:00:00Z`, { assign_to: MEMBERS.jonas }));
    await conflict(introBody('2026-12-09T12:00:00Z', { assign_to: MEMBERS.jonas }));
  });

  it('duplicate external_id in the organization and mode is 409; live mode and another organization may reuse it', async () => {
    await created(t, introBody('2026-12-10T09:00:00Z', { external_id: 'dup-1' }));
    await conflict(introBody('2026-12-10T11:00:00Z', { external_id: 'dup-1' }));
    await created(t, introBody('2026-12-10T11:00:00Z', { external_id: 'dup-1' }), KEYS.live);
    const globex = await create(
      t,
      {
        event_type_id: 'et_globex_demo',
        requested_time: '2026-12-10T16:00:00Z',
        attendee: { name: 'H', email: 'h@example.com' },
        external_id: 'dup-1',
      },
      KEYS.other,
    );
    assert.equal(globex.status, 201, globex.text);
  });
});

describe('POST /bookings: security and modes', () => {
  it('no key 401, invalid key 401, a key without bookings:create 403', async () => {
    await expectError(await create(t, introBody('2026-12-14T10:00:00Z'), ''), 401, 'unauthorized');
    await expectError(await create(t, introBody('2026-12-14T10:00:00Z'), 'sk_test_not_a_real_key_000000000000'), 401, 'unauthorized');
    await expectError(await create(t, introBody('2026-12-14T10:00:00Z'), KEYS.readOnly), 403, 'forbidden');
  });

  it('test bookings never block live availability, nor the reverse', async () => {
    await created(t, introBody('2026-12-14T10:00:00Z'));
    await created(t, introBody('2026-12-14T10:00:00Z'));
    await conflict409(introBody('2026-12-14T10:00:00Z'));
    const live = await created(t, introBody('2026-12-14T10:00:00Z'), KEYS.live);
    assert.equal(live.livemode, true);
    const r = await t.request('GET', `/v1/bookings/${live.id}`, { key: KEYS.secret });
    assert.equal(r.status, 404, 'a live booking is invisible to a test key');
  });
});

async function conflict409(body: unknown) {
  const res = await create(t, body);
  assert.equal(res.status, 409, res.text);
}
