import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { busyOfMembers } from '../../src/db/queries/busy.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS, testSeed } from '../helpers/fixtures.ts';

// busyOfMembers reads the holds whose buffered interval overlaps the window [from, to), written as
// lower/upper bounds rather than with `&&` (so that the planner keeps to the btree): one hold of
// 10:00-10:30 with a 10-minute buffer after, [10:00, 10:40), and windows on each of its edges.
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
  await db.pool.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee)
     values ('bkg_edge', 'org_northwind', 'test', 'et_intro_call', 'SCHEDULED', '2027-06-07T10:00:00Z', '2027-06-07T10:30:00Z',
             '{"name":"C","email":"c@example.com"}')`,
  );
  await db.pool.query(
    `insert into booking_members (booking_id, member_id, mode, start_time, during)
     values ('bkg_edge', $1, 'test', '2027-06-07T10:00:00Z', tstzrange('2027-06-07T10:00:00Z', '2027-06-07T10:40:00Z', '[)'))`,
    [MEMBERS.jonas],
  );
});
after(() => db.drop());

async function busyIn(from: string, to: string, mode = 'test'): Promise<string | null> {
  const rows = await busyOfMembers(db.pool, [MEMBERS.jonas], mode, new Date(from), new Date(to), null);
  return rows.find((r) => r.kind === 'booking')?.starts ?? null;
}

it('finds a hold overlapping the window, however little', async () => {
  const start = String(Date.parse('2027-06-07T10:00:00Z'));
  assert.equal(await busyIn('2027-06-07T10:39:00Z', '2027-06-07T11:00:00Z'), start); // its buffer's last minute
  assert.equal(await busyIn('2027-06-07T09:00:00Z', '2027-06-07T10:01:00Z'), start); // its first minute
  assert.equal(await busyIn('2027-06-07T10:10:00Z', '2027-06-07T10:20:00Z'), start); // inside it
  assert.equal(await busyIn('2027-06-07T00:00:00Z', '2027-06-08T00:00:00Z'), start); // around it
});

it('does not find a hold that only touches the window', async () => {
  assert.equal(await busyIn('2027-06-07T10:40:00Z', '2027-06-07T11:00:00Z'), null); // the window starts where the buffer ends
  assert.equal(await busyIn('2027-06-07T09:00:00Z', '2027-06-07T10:00:00Z'), null); // the window ends where the hold starts
});

it('does not find a hold of the other mode, or one no longer active', async () => {
  assert.equal(await busyIn('2027-06-07T10:00:00Z', '2027-06-07T11:00:00Z', 'live'), null);
  await db.pool.query(`update booking_members set active = false where booking_id = 'bkg_edge'`);
  assert.equal(await busyIn('2027-06-07T10:00:00Z', '2027-06-07T11:00:00Z'), null);
  await db.pool.query(`update booking_members set active = true where booking_id = 'bkg_edge'`);
});
