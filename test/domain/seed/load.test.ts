import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
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

it('refuses, naming the organization, a team id that belongs to another organization', async () => {
  // a later file with only the other organization, which now names a team of the first
  const seed = testSeed();
  seed.organizations = seed.organizations.filter((o: { id: string }) => o.id === 'org_globex');
  seed.organizations[0].teams.push({ id: 'team_advisors', name: 'Taken' });
  await assert.rejects(loadSeed(db.pool, validateSeed(seed)), (e: Error) =>
    e instanceof SeedError && /^organizations\[0\]: id "team_advisors" already belongs to another organization/.test(e.message));
  const owner = await db.pool.query(`select organization_id from teams where id = 'team_advisors'`);
  assert.equal(owner.rows[0].organization_id, 'org_northwind');
});
