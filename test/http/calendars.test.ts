import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { keyWith } from '../domain/availability/scheduling-fixtures.ts';

let t: TestApp;
let noCalendarScope: string;
before(async () => {
  t = await startApp();
  noCalendarScope = await keyWith(t.db.pool, ['team:read', 'team:members:read', 'event-types:read']);
  // A secondary calendar, created after the seeded primaries, so order is visible.
  await t.db.pool.query(
    `insert into calendars (id, organization_id, user_id, team_id, provider, calendar_id, calendar_name, provider_email, timezone, is_primary, sync_status)
     values ('cal_amara_apple', 'org_northwind', $1, 'team_advisors', 'APPLE', 'amara-icloud', 'Personal', 'amara@icloud.example', 'Europe/London', false, 'ERROR')`,
    [MEMBERS.amara],
  );
});
after(async () => t?.close());

const get = (path: string, key: string | null = KEYS.secret) => t.request('GET', path, { key });
const ids = (body: { calendars: { id: string }[] }) => body.calendars.map((c) => c.id);
const FIELDS = [
  'calendarId',
  'calendarName',
  'createdAt',
  'id',
  'isPrimary',
  'lastSyncAt',
  'provider',
  'providerEmail',
  'supportsWebhooks',
  'syncError',
  'syncStatus',
  'teamId',
  'timezone',
  'updatedAt',
  'userId',
];

describe('GET /v1/calendars', () => {
  it('lists primary calendars first, then oldest first, camelCase, nothing credential-like', async () => {
    const res = await get('/v1/calendars');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res.body), ['cal_amara_google', 'cal_jonas_microsoft', 'cal_amara_apple']);
    assert.deepEqual(res.body.pagination, { total: 3, limit: 50, offset: 0, hasMore: false });
    for (const c of res.body.calendars) assert.deepEqual(Object.keys(c).sort(), FIELDS);
    const google = res.body.calendars[0];
    assert.equal(google.userId, MEMBERS.amara);
    assert.equal(google.teamId, 'team_advisors');
    assert.equal(google.provider, 'GOOGLE');
    assert.equal(google.isPrimary, true);
    assert.equal(google.syncStatus, 'SUCCESS');
    assert.equal(google.lastSyncAt, '2026-11-20T08:00:00.000Z');
    assert.equal(google.supportsWebhooks, true);
    assert.doesNotMatch(res.text, /token|secret|password|credential/i);
    // Regression: a freshly seeded row showed updatedAt a few ms before createdAt.
    for (const c of res.body.calendars) assert.ok(c.updatedAt >= c.createdAt, `${c.id}: ${c.updatedAt} < ${c.createdAt}`);
  });

  it('filters by userId, teamId, provider and syncStatus (camelCase names)', async () => {
    assert.deepEqual(ids((await get(`/v1/calendars?userId=${MEMBERS.amara}`)).body), ['cal_amara_google', 'cal_amara_apple']);
    assert.deepEqual(ids((await get('/v1/calendars?teamId=team_advisors&provider=MICROSOFT')).body), ['cal_jonas_microsoft']);
    assert.deepEqual(ids((await get('/v1/calendars?syncStatus=NEEDS_REAUTH')).body), ['cal_jonas_microsoft']);
    assert.deepEqual(ids((await get('/v1/calendars?teamId=team_support')).body), []);
  });

  it('paginates with hasMore', async () => {
    const first = await get('/v1/calendars?limit=2');
    assert.deepEqual(ids(first.body), ['cal_amara_google', 'cal_jonas_microsoft']);
    assert.deepEqual(first.body.pagination, { total: 3, limit: 2, offset: 0, hasMore: true });
    const rest = await get('/v1/calendars?limit=2&offset=2');
    assert.deepEqual(ids(rest.body), ['cal_amara_apple']);
    assert.equal(rest.body.pagination.hasMore, false);
  });

  it("never shows another organization's calendars; filters naming them match nothing", async () => {
    assert.deepEqual(ids((await get('/v1/calendars', KEYS.other)).body), ['cal_hank_apple']);
    assert.deepEqual(ids((await get(`/v1/calendars?userId=${MEMBERS.otherOrg}`)).body), []);
    assert.deepEqual(ids((await get('/v1/calendars?teamId=team_globex')).body), []);
  });

  for (const [q, field] of [
    ['userId=amara', 'userId'],
    ['provider=OUTLOOK', 'provider'],
    ['syncStatus=DONE', 'syncStatus'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
  ]) {
    it(`400 naming ${field} for ${q}`, async () => {
      const res = await get(`/v1/calendars?${q}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.field, field);
    });
  }

  it('an unknown enum value is 400 naming the allowed values (query parameter wording)', async () => {
    const res = await get('/v1/calendars?provider=OUTLOOK');
    assert.match(res.body.error.message, /^query parameter "provider" must be one of "GOOGLE", "MICROSOFT", "APPLE", "CALDAV"$/);
  });

  it('401 without a key; 403 for publishable keys and keys without calendars:read', async () => {
    assert.equal((await get('/v1/calendars', null)).status, 401);
    assert.equal((await get('/v1/calendars', KEYS.publishableAnyOrigin)).status, 403);
    assert.equal((await get('/v1/calendars', noCalendarScope)).status, 403);
  });
});

describe('GET /v1/calendars/{userId}', () => {
  it("returns the user's calendars with the documented fields", async () => {
    const res = await get(`/v1/calendars/${MEMBERS.amara}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.userId, MEMBERS.amara);
    assert.deepEqual(ids(res.body), ['cal_amara_google', 'cal_amara_apple']);
    assert.deepEqual(Object.keys(res.body.calendars[0]).sort(), [
      'calendarName',
      'id',
      'isPrimary',
      'lastSyncAt',
      'provider',
      'providerEmail',
      'syncError',
      'syncStatus',
    ]);
    assert.equal(res.body.calendars[1].lastSyncAt, null);
  });

  it('an active member without calendars gets an empty list', async () => {
    const res = await get(`/v1/calendars/${MEMBERS.priya}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.calendars, []);
  });

  it('404 for a user of another organization, an unknown or an inactive one; 400 for a malformed id', async () => {
    assert.equal((await get(`/v1/calendars/${MEMBERS.otherOrg}`)).status, 404);
    assert.equal((await get('/v1/calendars/3b9a4c1e-7d2f-4e8a-9c51-000000000000')).status, 404);
    await t.db.pool.query('update members set is_active = false where id = $1', [MEMBERS.jonas]);
    const inactive = await get(`/v1/calendars/${MEMBERS.jonas}`);
    await t.db.pool.query('update members set is_active = true where id = $1', [MEMBERS.jonas]);
    assert.equal(inactive.status, 404);
    assert.equal(inactive.body.error.code, 'not_found');
    const bad = await get('/v1/calendars/not-a-uuid');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'userId');
  });

  it('401 without a key; 403 for a publishable key', async () => {
    assert.equal((await get(`/v1/calendars/${MEMBERS.amara}`, null)).status, 401);
    assert.equal((await get(`/v1/calendars/${MEMBERS.amara}`, KEYS.publishableAnyOrigin)).status, 403);
  });
});
