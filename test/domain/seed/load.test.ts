import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { hashKey } from '../../../src/domain/auth/keys.ts';
import { loadSeed } from '../../../src/domain/seed/load.ts';
import { SeedError, validateSeed } from '../../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createTestDatabase } from '../../helpers/db.ts';
import { testSeed } from '../../helpers/fixtures.ts';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(() => db.drop());

/** A later file with only the other organization (Globex), changed by `edit`. */
function globexOnly(edit: (org: ReturnType<typeof testSeed>['organizations'][number]) => void) {
  const seed = testSeed();
  seed.organizations = seed.organizations.filter((o: { id: string }) => o.id === 'org_globex');
  edit(seed.organizations[0]);
  return validateSeed(seed);
}

it('refuses, naming the path, a team id that belongs to another organization', async () => {
  const seed = globexOnly((org) => org.teams.push({ id: 'team_advisors', name: 'Taken' }));
  const at = `organizations[0].teams[${seed.organizations[0].teams.length - 1}].id`;
  await assert.rejects(
    loadSeed(db.pool, seed),
    (e: Error) => e instanceof SeedError && e.message.startsWith(`${at}: "team_advisors" already belongs to another organization`),
  );
  const owner = await db.pool.query(`select organization_id from teams where id = 'team_advisors'`);
  assert.equal(owner.rows[0].organization_id, 'org_northwind');
});

it('refuses, naming the path, a member id of another organization', async () => {
  const seed = globexOnly((org) => {
    org.calendars = [];
    org.members[0].id = '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b01';
  });
  await assert.rejects(
    loadSeed(db.pool, seed),
    (e: Error) =>
      e instanceof SeedError &&
      e.message.startsWith('organizations[0].members[0].id: "3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b01" already belongs'),
  );
});

it('never moves an API key to another organization: the file is refused, naming the path, not the secret', async () => {
  const stolen = 'sk_test_northwind_demo_server_key_0001';
  const seed = globexOnly((org) => org.api_keys.push({ key: stolen, name: 'Mine now', scopes: ['bookings:read'] }));
  const at = `organizations[0].api_keys[${seed.organizations[0].api_keys.length - 1}].key`;
  await assert.rejects(
    loadSeed(db.pool, seed),
    (e: Error) =>
      e instanceof SeedError &&
      e.message.startsWith(`${at}: this key already belongs to another organization`) &&
      !e.message.includes(stolen),
  );
  const key = await db.pool.query(`select organization_id, name from api_keys where key_hash = $1`, [hashKey(stolen)]);
  assert.deepEqual(
    key.rows.map((r) => r.organization_id),
    ['org_northwind'],
  );
  assert.notEqual(key.rows[0].name, 'Mine now');
});

it("stores a calendar's createdAt and updatedAt as the file gives them; the same file again changes nothing", async () => {
  const seed = testSeed();
  const northwind = seed.organizations.find((o: { id: string }) => o.id === 'org_northwind');
  const [first, second] = northwind.calendars;
  // opposite to their order in the file
  Object.assign(first, { createdAt: '2025-06-01T12:00:00Z', updatedAt: '2026-01-02T03:04:05Z' });
  Object.assign(second, { createdAt: '2025-01-01T00:00:00Z' });
  await loadSeed(db.pool, validateSeed(seed));
  const stored = await db.pool.query(`select id, created_at, updated_at from calendars where id = any($1) order by created_at`, [
    [first.id, second.id],
  ]);
  assert.deepEqual(
    stored.rows.map((r) => [r.id, r.created_at.toISOString()]),
    [
      [second.id, '2025-01-01T00:00:00.000Z'],
      [first.id, '2025-06-01T12:00:00.000Z'],
    ],
  );
  assert.equal(stored.rows[1].updated_at.toISOString(), '2026-01-02T03:04:05.000Z');
  // no updatedAt in the file: the time seed changed the row (it was seeded before, without createdAt)
  assert.ok(stored.rows[0].updated_at.getTime() > Date.parse('2026-01-01T00:00:00Z'));
  // a new calendar with createdAt alone looks unchanged since then
  northwind.calendars.push({
    ...second,
    id: 'cal_new_with_date',
    calendarId: 'new-cal',
    isPrimary: false,
    createdAt: '2024-03-03T03:03:03Z',
  });
  await loadSeed(db.pool, validateSeed(seed));
  const fresh = (await db.pool.query(`select created_at, updated_at from calendars where id = 'cal_new_with_date'`)).rows[0];
  assert.deepEqual(
    [fresh.created_at.toISOString(), fresh.updated_at.toISOString()],
    ['2024-03-03T03:03:03.000Z', '2024-03-03T03:03:03.000Z'],
  );
  // a new calendar without dates: created and updated at the same instant
  northwind.calendars.push({ ...second, id: 'cal_new_no_date', calendarId: 'new-cal-2', isPrimary: false, createdAt: undefined });
  await loadSeed(db.pool, validateSeed(seed));
  const plain = (await db.pool.query(`select created_at, updated_at from calendars where id = 'cal_new_no_date'`)).rows[0];
  assert.equal(plain.updated_at.getTime(), plain.created_at.getTime());
  const again = await loadSeed(db.pool, validateSeed(seed));
  assert.equal(again.changes, 0);
});

it('refuses, naming the path, a slug or external_id an event type made through the API already holds', async () => {
  const org = testSeed().organizations[0];
  await db.pool.query(
    `insert into event_types (id, organization_id, team_id, name, slug, duration, slot_interval, scheduling_type, workload, external_id)
     values ('et_made_by_api', $1, $2, 'Made by the API', 'made-by-api', 30, 30, 'SOLO', '{}', 'crm-42')`,
    [org.id, org.teams[0].id],
  );
  try {
    for (const [field, value] of [
      ['slug', 'made-by-api'],
      ['external_id', 'crm-42'],
    ] as const) {
      const seed = testSeed();
      const types = seed.organizations[0].event_types;
      types[types.length - 1][field] = value;
      await assert.rejects(loadSeed(db.pool, validateSeed(seed)), (e: Error) => {
        assert.ok(e instanceof SeedError, String(e));
        assert.equal(
          e.message,
          `organizations[0].event_types[${types.length - 1}].${field}: "${value}" is already used by another row in the database`,
        );
        return true;
      });
    }
  } finally {
    await db.pool.query(`delete from event_types where id = 'et_made_by_api'`);
  }
});
