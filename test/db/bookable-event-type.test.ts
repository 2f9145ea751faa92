import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { findBookable, findVisibleWithFields } from '../../src/db/queries/event-types.ts';
import { hostsOfType } from '../../src/db/queries/members.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS, testSeed } from '../helpers/fixtures.ts';

// A booking create reads its event type and the type's hosts in one statement (findBookable),
// the hosts' schedules as JSON; they must be those of the very rows, in the very order, that
// hostsOfType reads, with the same types and values.
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(() => db.drop());

async function sameAsSeparateReads(id: string): Promise<void> {
  const bookable = await findBookable(db.pool, 'org_northwind', id);
  assert.ok(bookable, id);
  const { hosts, ...type } = bookable;
  assert.deepEqual(type, await findVisibleWithFields(db.pool, 'org_northwind', id));
  const rows = await hostsOfType(db.pool, type);
  assert.deepEqual(
    hosts,
    rows.map((m) => ({ id: m.id, timezone: m.timezone, working_hours: m.working_hours, max_bookings_per_day: m.max_bookings_per_day })),
  );
  assert.ok(hosts.length > 0, `${id} has hosts`);
}

it("a team type: its active team members, oldest first, with the separate reads' types and values", async () => {
  for (const id of ['et_intro_call', 'et_planning_session', 'et_onboarding']) await sameAsSeparateReads(id);
});

it('a type with host_ids: those hosts in that order, inactive ones left out', async () => {
  await db.pool.query(`update event_types set host_ids = $1 where id = 'et_planning_session'`, [[MEMBERS.jonas, MEMBERS.amara]]);
  await sameAsSeparateReads('et_planning_session');
  assert.deepEqual(
    (await findBookable(db.pool, 'org_northwind', 'et_planning_session'))!.hosts.map((h) => h.id),
    [MEMBERS.jonas, MEMBERS.amara],
  );
  await db.pool.query(`update members set is_active = false where id = $1`, [MEMBERS.jonas]);
  assert.deepEqual(
    (await findBookable(db.pool, 'org_northwind', 'et_planning_session'))!.hosts.map((h) => h.id),
    [MEMBERS.amara],
  );
  await db.pool.query(`update members set is_active = true where id = $1`, [MEMBERS.jonas]);
});

it("nothing for an inactive type or another organization's", async () => {
  await db.pool.query(`update event_types set is_active = false where id = 'et_onboarding'`);
  assert.equal(await findBookable(db.pool, 'org_northwind', 'et_onboarding'), undefined);
  assert.equal(await findBookable(db.pool, 'org_northwind', 'et_globex_demo'), undefined);
});
