import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { insertBooking, insertOutOfOffice, keyWith } from '../domain/availability/scheduling-fixtures.ts';

const NOW = new Date('2026-11-23T09:00:00Z');
const RETIRED = '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b99';
let t: TestApp;
let teamReadSecret: string;
before(async () => {
  t = await startApp({ now: NOW });
  teamReadSecret = await keyWith(t.db.pool, ['team:read']);
  await t.db.pool.query(
    `insert into members (id, organization_id, team_id, name, email, is_active, timezone, working_hours)
     values ($1, 'org_northwind', 'team_support', 'Old Timer', 'old@northwind.example', false, 'UTC', '[]')`,
    [RETIRED],
  );
});
after(async () => t?.close());

const get = (path: string, key: string | null = KEYS.secret) => t.request('GET', path, { key });
const ids = (body: { members: { id: string }[] }) => body.members.map((m) => m.id);

describe('GET /v1/team/members', () => {
  it("lists the organization's members, oldest first, with personal data for team:members:read", async () => {
    const res = await get('/v1/team/members');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res.body), [MEMBERS.amara, MEMBERS.jonas, MEMBERS.priya, RETIRED]);
    assert.deepEqual(res.body.pagination, { total: 4, limit: 50, offset: 0, has_more: false });
    const amara = res.body.members[0];
    assert.equal(amara.object, 'team_member');
    assert.equal(amara.name, 'Amara Okafor');
    assert.equal(amara.email, 'amara@northwind.example');
    assert.equal(amara.avatar_url, null);
    assert.deepEqual(amara.team, { id: 'team_advisors', name: 'Advisors' });
    assert.deepEqual(amara.skills, ['english', 'pensions']);
    assert.equal(amara.role, 'MEMBER');
  });

  it('omits names, emails and avatars for keys with only team:read (publishable or secret)', async () => {
    for (const key of [KEYS.publishableAnyOrigin, teamReadSecret]) {
      const res = await get('/v1/team/members', key);
      assert.equal(res.status, 200);
      for (const m of res.body.members) {
        assert.ok(!('name' in m) && !('email' in m) && !('avatar_url' in m), JSON.stringify(m));
        assert.ok(m.id && m.team);
      }
    }
  });

  it('filters by is_active (alias isActive), team_id and skills (every listed skill)', async () => {
    assert.deepEqual(ids((await get('/v1/team/members?is_active=false')).body), [RETIRED]);
    assert.deepEqual(ids((await get('/v1/team/members?isActive=true')).body), [MEMBERS.amara, MEMBERS.jonas, MEMBERS.priya]);
    assert.deepEqual(ids((await get('/v1/team/members?team_id=team_support')).body), [MEMBERS.priya, RETIRED]);
    assert.deepEqual(ids((await get('/v1/team/members?skills=english,pensions')).body), [MEMBERS.amara]);
    assert.deepEqual(ids((await get('/v1/team/members?skills=german')).body), [MEMBERS.jonas]);
    const foreign = await get('/v1/team/members?team_id=team_globex');
    assert.equal(foreign.status, 200);
    assert.deepEqual(foreign.body.members, [], "another organization's team matches nothing");
    assert.equal(foreign.body.pagination.total, 0);
  });

  it('paginates with limit and offset', async () => {
    const first = await get('/v1/team/members?limit=2');
    assert.deepEqual(ids(first.body), [MEMBERS.amara, MEMBERS.jonas]);
    assert.deepEqual(first.body.pagination, { total: 4, limit: 2, offset: 0, has_more: true });
    const last = await get('/v1/team/members?limit=2&offset=2');
    assert.deepEqual(ids(last.body), [MEMBERS.priya, RETIRED]);
    assert.equal(last.body.pagination.has_more, false);
    assert.equal((await get('/v1/team/members?limit=100')).status, 200);
  });

  it("never lists another organization's members", async () => {
    assert.deepEqual(ids((await get('/v1/team/members', KEYS.other)).body), [MEMBERS.otherOrg]);
  });

  for (const [q, field] of [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=+2', 'limit'],
    ['offset=-1', 'offset'],
    ['is_active=maybe', 'is_active'],
    ['skills=,', 'skills'],
  ]) {
    it(`400 naming ${field} for ${q}`, async () => {
      const res = await get(`/v1/team/members?${q}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.field, field);
    });
  }

  for (const date of ['2026-11-31', '2026-02-29', '2026-13-01', '24-11-2026']) {
    it(`available: 400 naming date for the impossible or malformed date ${date}`, async () => {
      const res = await get(`/v1/team/members/available?date=${date}`);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.field, 'date');
    });
  }

  it('401 without a key; 403 without team:read', async () => {
    assert.equal((await get('/v1/team/members', null)).status, 401);
    assert.equal((await get('/v1/team/members', KEYS.readOnly)).status, 403);
  });
});

describe('GET /v1/team/members/{id}', () => {
  it('returns one member in the list item shape', async () => {
    const res = await get(`/v1/team/members/${MEMBERS.jonas}`);
    assert.equal(res.status, 200);
    const list = await get('/v1/team/members');
    assert.deepEqual(res.body.member, list.body.members[1]);
    assert.equal(res.body.member.avatar_url, 'https://northwind.example/avatars/jonas.png');
    assert.equal((await get(`/v1/team/members/${RETIRED}`)).body.member.is_active, false);
  });

  it("404 for another organization's member or an unknown id; 400 for a malformed id", async () => {
    assert.equal((await get(`/v1/team/members/${MEMBERS.otherOrg}`)).status, 404);
    assert.equal((await get('/v1/team/members/3b9a4c1e-7d2f-4e8a-9c51-000000000000')).status, 404);
    const bad = await get('/v1/team/members/amara');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'id');
  });

  it('needs a secret key with team:members:read', async () => {
    assert.equal((await get(`/v1/team/members/${MEMBERS.amara}`, null)).status, 401);
    assert.equal((await get(`/v1/team/members/${MEMBERS.amara}`, KEYS.publishableAnyOrigin)).status, 403);
    assert.equal((await get(`/v1/team/members/${MEMBERS.amara}`, teamReadSecret)).status, 403);
  });
});

describe('GET /v1/team/members/available', () => {
  it('everyone working on a Tuesday is available; personal data follows the scope', async () => {
    const res = await get('/v1/team/members/available?date=2026-11-24');
    assert.equal(res.status, 200);
    assert.equal(res.body.date, '2026-11-24');
    assert.deepEqual(ids(res.body), [MEMBERS.amara, MEMBERS.jonas, MEMBERS.priya], 'active members only');
    assert.deepEqual(res.body.pagination, { total: 3, limit: 50, offset: 0, has_more: false });
    const amara = res.body.members[0];
    assert.deepEqual(amara.availability, { is_available: true, next_available_slot: null, booked_slots: 0, max_bookings_per_day: 6 });
    assert.equal(amara.name, 'Amara Okafor');
    const pk = await get('/v1/team/members/available?date=2026-11-24', KEYS.publishableAnyOrigin);
    assert.equal(pk.status, 200);
    assert.ok(!('name' in pk.body.members[0]) && !('email' in pk.body.members[0]));
    assert.equal(pk.body.members[0].availability.is_available, true);
  });

  it('a member at the daily cap is unavailable, with booked_slots and the next open slot (own mode only)', async () => {
    for (const h of ['07', '08', '09', '10']) {
      await insertBooking(t.db.pool, {
        eventTypeId: 'et_intro_call',
        memberIds: [MEMBERS.jonas],
        start: `2026-11-24T${h}:00:00Z`,
        minutes: 30,
      });
    }
    const res = await get('/v1/team/members/available?date=2026-11-24&team_id=team_advisors');
    const jonas = res.body.members.find((m: { id: string }) => m.id === MEMBERS.jonas);
    assert.deepEqual(jonas.availability, {
      is_available: false,
      next_available_slot: '2026-11-25T07:00:00.000Z',
      booked_slots: 4,
      max_bookings_per_day: 4,
    });
    const live = await get('/v1/team/members/available?date=2026-11-24&team_id=team_advisors', KEYS.live);
    const liveJonas = live.body.members.find((m: { id: string }) => m.id === MEMBERS.jonas);
    assert.equal(liveJonas.availability.is_available, true, 'test bookings never block live availability');
    assert.equal(liveJonas.availability.booked_slots, 0);
  });

  it('a day off gives the start of the next working day; out-of-office pushes it further', async () => {
    await insertOutOfOffice(t.db.pool, MEMBERS.amara, '2026-11-30T00:00:00Z', '2026-12-01T00:00:00Z');
    const res = await get(`/v1/team/members/available?date=2026-11-28&skills=pensions`);
    assert.deepEqual(ids(res.body), [MEMBERS.amara]);
    assert.equal(res.body.members[0].availability.is_available, false);
    assert.equal(res.body.members[0].availability.next_available_slot, '2026-12-01T09:00:00.000Z');
  });

  it("duration must fit: 9 hours fits nobody's 8-hour day", async () => {
    const res = await get('/v1/team/members/available?date=2026-11-25&duration=540&team_id=team_support');
    assert.equal(res.body.members[0].availability.is_available, false);
  });

  for (const [q, field] of [
    ['date=2026-13-01', 'date'],
    ['date=2026-02-30', 'date'],
    ['date=tomorrow', 'date'],
    ['duration=0', 'duration'],
    ['duration=abc', 'duration'],
    ['limit=0', 'limit'],
    ['offset=-3', 'offset'],
  ]) {
    it(`400 naming ${field} for ${q}`, async () => {
      const res = await get(`/v1/team/members/available?${q}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.field, field);
    });
  }

  it("401 without a key; 403 without team:read; another organization's team matches nothing", async () => {
    assert.equal((await get('/v1/team/members/available', null)).status, 401);
    assert.equal((await get('/v1/team/members/available', KEYS.readOnly)).status, 403);
    const foreign = await get('/v1/team/members/available?team_id=team_globex');
    assert.deepEqual(foreign.body.members, []);
  });
});
