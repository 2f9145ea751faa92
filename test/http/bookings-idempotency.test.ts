import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import { NOW, create, introBody, seedBooking } from './bookings-helpers.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
});
after(async () => {
  await t.close();
});

const keyed = (key: string, body: unknown, apiKey: string = KEYS.secret) => create(t, body, apiKey, { 'idempotency-key': key });
const countAt = async (start: string) =>
  (await t.db.pool.query(`select count(*)::int as n from bookings where start_time = $1`, [start])).rows[0].n as number;

describe('Idempotency-Key on POST /bookings', () => {
  it('a replay with the same body is 200 with the stored body and idempotent_replay: true; one booking exists', async () => {
    const body = introBody('2026-12-02T10:00:00Z');
    const first = await keyed('replay-1', body);
    assert.equal(first.status, 201, first.text);
    const again = await keyed('replay-1', body);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.idempotent_replay, true);
    assert.equal(again.body.booking.idempotent_replay, true);
    const { idempotent_replay: _a, ...top } = again.body;
    const { idempotent_replay: _b, ...booking } = again.body.booking;
    assert.deepEqual({ ...top, booking }, first.body, 'identical body apart from the replay flag');
    assert.equal(await countAt('2026-12-02T10:00:00Z'), 1);
    // the same body with keys in another order is the same request
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    assert.equal((await keyed('replay-1', reordered)).status, 200);
  });

  it("a replay keeps the first answer's key order, nested objects included", async () => {
    // jsonb, where the record used to be kept, puts shorter keys first: {"booking":…,"success":true}
    const body = introBody('2026-12-02T10:30:00Z', { metadata: { zeta: 'z', alpha: 'a', mid: { yy: 1, b: 2 } } });
    const first = await keyed('replay-order', body);
    assert.equal(first.status, 201, first.text);
    const again = await keyed('replay-order', body);
    assert.equal(again.status, 200, again.text);
    const flagless = (v: unknown): unknown =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (k === 'idempotent_replay' ? [] : [[k, flagless(x)]])))
        : v;
    assert.equal(JSON.stringify(flagless(JSON.parse(again.text))), JSON.stringify(JSON.parse(first.text)));
    assert.deepEqual(Object.keys(JSON.parse(again.text)), [...Object.keys(JSON.parse(first.text)), 'idempotent_replay']);
  });

  it('the same key with another body is 422 idempotency_key_reused', async () => {
    assert.equal((await keyed('reuse-1', introBody('2026-12-02T11:00:00Z'))).status, 201);
    const res = await keyed('reuse-1', introBody('2026-12-02T11:15:00Z'));
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.code, 'idempotency_key_reused');
    assert.equal(await countAt('2026-12-02T11:15:00Z'), 0);
  });

  it('a replay while the first request is still running is 409', async () => {
    const blocker = new pg.Client({ connectionString: t.db.url });
    await blocker.connect();
    await blocker.query('begin');
    // holding the hosts' rows makes the first create wait inside its transaction
    await blocker.query(`select 1 from members where team_id = 'team_advisors' for update`);
    const body = introBody('2026-12-02T12:00:00Z');
    const first = keyed('inflight-1', body);
    await new Promise((r) => setTimeout(r, 300));
    const second = await keyed('inflight-1', body);
    await blocker.query('rollback');
    await blocker.end();
    assert.equal(second.status, 409, second.text);
    assert.equal(second.body.error.code, 'conflict');
    assert.equal((await first).status, 201);
    assert.equal((await keyed('inflight-1', body)).status, 200, 'once finished it replays');
  });

  it('a key over 255 characters is 400; 255 is fine', async () => {
    const long = await keyed('k'.repeat(256), introBody('2026-12-02T13:00:00Z'));
    assert.equal(long.status, 400, long.text);
    assert.equal(long.body.error.code, 'validation_error');
    assert.match(long.body.error.message, /Idempotency-Key/);
    assert.equal((await keyed('k'.repeat(255), introBody('2026-12-02T13:00:00Z'))).status, 201);
  });

  it('a failed request is not stored as the key result: the key can be used again', async () => {
    const bad = await keyed('fail-1', { ...introBody('2026-12-02T14:00:00Z'), attendee: { name: 'A', email: 'bad' } });
    assert.equal(bad.status, 400);
    const good = await keyed('fail-1', introBody('2026-12-02T14:00:00Z'));
    assert.equal(good.status, 201, good.text);
    // a 409 is not stored either
    await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-03T09:00:00Z', member: '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b01' });
    await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-03T09:00:00Z', member: '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b02' });
    assert.equal((await keyed('fail-2', introBody('2026-12-03T09:00:00Z'))).status, 409);
    assert.equal((await keyed('fail-2', introBody('2026-12-03T10:00:00Z'))).status, 201);
  });

  it('keys are per team (api-spec Limits): the same key is a new request on another team of the organization', async () => {
    const advisors = introBody('2026-12-08T10:00:00Z');
    const support = {
      event_type_id: 'et_onboarding',
      requested_time: '2026-12-08T15:00:00Z',
      attendee: { name: 'S', email: 's@example.com' },
    };
    const a = await keyed('team-1', advisors);
    assert.equal(a.status, 201, a.text);
    const s = await keyed('team-1', support);
    assert.equal(s.status, 201, s.text);
    assert.notEqual(s.body.booking.id, a.body.booking.id);
    assert.equal((await keyed('team-1', advisors)).body.booking.id, a.body.booking.id, 'each team replays its own answer');
    assert.equal((await keyed('team-1', support)).body.booking.id, s.body.booking.id);
    // within one team the key is one request: another event type of team_advisors is a reuse
    const planning = await keyed('team-1', {
      event_type_id: 'et_planning_session',
      requested_time: '2026-12-08T11:00:00Z',
      attendee: { name: 'P', email: 'p@example.com' },
    });
    assert.equal(planning.status, 422, planning.text);
    assert.equal(planning.body.error.code, 'idempotency_key_reused');
    // a new event type is scoped to the team in its body
    const newType = (team: string, key = 'team-2', name = `Keyed ${team}`) =>
      t.request('POST', '/v1/event-types', {
        key: KEYS.secret,
        headers: { 'idempotency-key': key },
        body: { team_id: team, name, duration: 30, workload: { prep: 0, meeting: 30, implementation: 0, admin: 0 } },
      });
    const mine = await newType('team_advisors');
    assert.equal(mine.status, 201, mine.text);
    const other = await newType('team_support');
    assert.equal(other.status, 201, other.text);
    assert.equal(other.body.event_type.team_id, 'team_support');
    // deleting an event type is scoped to that type's team
    const third = await newType('team_advisors', 'team-3', 'Keyed again');
    assert.equal(third.status, 201, third.text);
    const del = (id: string) =>
      t.request('DELETE', `/v1/event-types/${id}`, { key: KEYS.secret, headers: { 'idempotency-key': 'team-4' } });
    assert.equal((await del(mine.body.event_type.id)).status, 200);
    const otherDeleted = await del(other.body.event_type.id);
    assert.equal(otherDeleted.status, 200, `another team: a new request (${otherDeleted.text})`);
    assert.notEqual(otherDeleted.headers.get('idempotent-replayed'), 'true');
    const reuse = await del(third.body.event_type.id);
    assert.equal(reuse.status, 422, `the same team: another request under a used key (${reuse.text})`);
    assert.equal(reuse.body.error.code, 'idempotency_key_reused');
    assert.equal((await del(mine.body.event_type.id)).body.idempotent_replay, true);
  });

  it('the same request replays even if its team changed since (an event type moved, a record from before per-team keys)', async () => {
    const body = {
      event_type_id: 'et_onboarding',
      requested_time: '2026-12-09T15:00:00Z',
      attendee: { name: 'M', email: 'm@example.com' },
    };
    const first = await keyed('moved-1', body);
    assert.equal(first.status, 201, first.text);
    await t.db.pool.query(`update event_types set team_id = 'team_advisors' where id = 'et_onboarding'`);
    try {
      const again = await keyed('moved-1', body);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.booking.id, first.body.booking.id);
      // a record filed before per-team keys (team '')
      await t.db.pool.query(`update idempotency_keys set team_id = '' where key = 'moved-1'`);
      assert.equal((await keyed('moved-1', body)).body.booking.id, first.body.booking.id);
      // another request under that key in the new team is still a new request there
      const other = await keyed('moved-1', { ...body, requested_time: '2026-12-09T10:00:00Z' });
      assert.equal(other.status, 201, other.text);
      // while the same request still runs under the other team, it is in flight here too
      await t.db.pool.query(`update idempotency_keys set state = 'running', locked_until = now() + interval '1 minute'
                              where key = 'moved-1' and team_id = ''`);
      const inFlight = await keyed('moved-1', body);
      assert.equal(inFlight.status, 409, inFlight.text);
    } finally {
      await t.db.pool.query(`update event_types set team_id = 'team_support' where id = 'et_onboarding'`);
    }
  });

  it('keys are per organization and mode', async () => {
    const body = introBody('2026-12-07T10:00:00Z');
    assert.equal((await keyed('scope-1', body)).status, 201);
    assert.equal((await keyed('scope-1', body, KEYS.live)).status, 201, 'live mode has its own keys');
    const globex = await keyed(
      'scope-1',
      { event_type_id: 'et_globex_demo', requested_time: '2026-12-07T16:00:00Z', attendee: { name: 'H', email: 'h@example.com' } },
      KEYS.other,
    );
    assert.equal(globex.status, 201, globex.text);
  });
});

describe('Idempotency-Key on DELETE /bookings/{id}', () => {
  it('a retried cancellation with the same key replays its 200; without it a second cancel is 409', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-01-05T10:00:00Z' });
    const first = await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret, headers: { 'idempotency-key': 'cancel-1' } });
    assert.equal(first.status, 200, first.text);
    const retry = await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret, headers: { 'idempotency-key': 'cancel-1' } });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.body.idempotent_replay, true);
    assert.equal(retry.body.booking.status, 'CANCELLED');
    assert.equal((await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret })).status, 409);
    assert.equal(
      (await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret, headers: { 'idempotency-key': 'cancel-2' } })).status,
      409,
    );
  });
});

describe('Idempotency-Key on the other POSTs and over time', () => {
  it('a retried confirm with the same key replays the stored answer, even after the booking changed', async () => {
    const id = await seedBooking(t, { status: 'PENDING_CONFIRMATION', start: '2027-01-06T10:00:00Z' });
    const headers = { 'idempotency-key': 'confirm-1' };
    const first = await t.request('POST', `/v1/bookings/${id}/confirm`, { key: KEYS.secret, headers });
    assert.equal(first.status, 200, first.text);
    assert.equal((await t.request('POST', `/v1/bookings/${id}/complete`, { key: KEYS.secret })).status, 200);
    const retry = await t.request('POST', `/v1/bookings/${id}/confirm`, { key: KEYS.secret, headers });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.body.idempotent_replay, true);
    assert.equal(retry.body.booking.status, 'SCHEDULED', 'the stored answer, not the booking as it is now');
  });

  it('a replay keeps idempotent_replay on routes whose first answer was a 200 (webhook rotate-secret and DELETE)', async () => {
    const hook = await t.request('POST', '/v1/webhooks', {
      key: KEYS.secret,
      body: { url: 'https://hooks.example.com/idem', events: ['BOOKING_CREATED'] },
    });
    assert.equal(hook.status, 201, hook.text);
    const id = hook.body.webhook.id;
    const rotate = () =>
      t.request('POST', `/v1/webhooks/${id}/rotate-secret`, { key: KEYS.secret, headers: { 'idempotency-key': 'rotate-1' } });
    const first = await rotate();
    assert.equal(first.status, 200, first.text);
    const again = await rotate();
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.idempotent_replay, true);
    assert.equal(
      JSON.stringify(again.body).includes(first.body.secret ?? first.body.webhook?.secret),
      true,
      'the same secret, not a second rotation',
    );
    const del = () => t.request('DELETE', `/v1/webhooks/${id}`, { key: KEYS.secret, headers: { 'idempotency-key': 'delete-1' } });
    assert.equal((await del()).status, 200);
    const replayed = await del();
    assert.equal(replayed.status, 200, replayed.text);
    assert.equal(replayed.body.idempotent_replay, true);
  });

  it('a key is kept 24 hours: after that the same key is a new request', async () => {
    assert.equal((await keyed('day-old', introBody('2026-12-03T10:00:00Z'))).status, 201);
    assert.equal((await keyed('day-old', introBody('2026-12-03T11:00:00Z'))).status, 422, 'within 24 h another body is a reuse');
    await t.db.pool.query(`update idempotency_keys set created_at = created_at - interval '24 hours 1 minute' where key = 'day-old'`);
    const fresh = await keyed('day-old', introBody('2026-12-03T11:00:00Z'));
    assert.equal(fresh.status, 201, fresh.text);
    assert.equal(fresh.body.idempotent_replay, undefined);
    assert.equal(await countAt('2026-12-03T11:00:00Z'), 1);
  });
});
