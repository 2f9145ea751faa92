import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS, testSeed } from '../helpers/fixtures.ts';

// decisions.md §4: the database itself refuses a member two overlapping active holds, whatever
// code writes them. These writes go straight to the table, past every check of the service.
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(() => db.drop());

let n = 0;
async function hold(member: string, from: string, to: string, opts: { mode?: string; active?: boolean; during?: [string, string] } = {}) {
  const id = `bkg_constraint_${++n}`;
  const mode = opts.mode ?? 'test';
  await db.pool.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee)
     values ($1, 'org_northwind', $2, 'et_intro_call', 'SCHEDULED', $3, $4, '{"name":"C","email":"c@example.com"}')`,
    [id, mode, from, to],
  );
  await db.pool.query(
    `insert into booking_members (booking_id, member_id, mode, start_time, during, active) values ($1, $2, $3, $4, tstzrange($5, $6), $7)`,
    [id, member, mode, from, opts.during?.[0] ?? from, opts.during?.[1] ?? to, opts.active ?? true],
  );
}

it('refuses an overlapping active hold of one member with SQLSTATE 23P01', async () => {
  await hold(MEMBERS.amara, '2027-05-03T09:00:00Z', '2027-05-03T09:30:00Z');
  await assert.rejects(hold(MEMBERS.amara, '2027-05-03T09:20:00Z', '2027-05-03T09:50:00Z'), (e: { code?: string }) => e.code === '23P01');
});

it('allows back-to-back holds, another member, the other mode and released holds', async () => {
  await hold(MEMBERS.jonas, '2027-05-04T09:00:00Z', '2027-05-04T09:30:00Z');
  await hold(MEMBERS.jonas, '2027-05-04T09:30:00Z', '2027-05-04T10:00:00Z');
  await hold(MEMBERS.amara, '2027-05-04T09:00:00Z', '2027-05-04T09:30:00Z');
  await hold(MEMBERS.jonas, '2027-05-04T09:00:00Z', '2027-05-04T09:30:00Z', { mode: 'live' });
  await hold(MEMBERS.jonas, '2027-05-04T09:10:00Z', '2027-05-04T09:20:00Z', { active: false });
});

it('refuses a hold whose interval does not contain its start (SQLSTATE 23514): the per-day cap counts on it', async () => {
  await assert.rejects(
    hold(MEMBERS.priya, '2027-05-05T09:00:00Z', '2027-05-05T09:30:00Z', { during: ['2027-05-05T09:10:00Z', '2027-05-05T09:30:00Z'] }),
    (e: { code?: string; constraint?: string }) => e.code === '23514' && e.constraint === 'booking_members_during_contains_start',
  );
});

it('refuses a hold reaching more than 24 h before or 48 h after its start (SQLSTATE 23514): the busy read counts on it', async () => {
  const refused = (e: { code?: string; constraint?: string }) => e.code === '23514' && e.constraint === 'booking_members_during_near_start';
  await assert.rejects(
    hold(MEMBERS.priya, '2027-05-08T09:00:00Z', '2027-05-08T09:30:00Z', { during: ['2027-05-07T08:59:00Z', '2027-05-08T09:30:00Z'] }),
    refused,
  );
  await assert.rejects(
    hold(MEMBERS.priya, '2027-05-09T09:00:00Z', '2027-05-09T09:30:00Z', { during: ['2027-05-09T09:00:00Z', '2027-05-11T09:01:00Z'] }),
    refused,
  );
  // The longest the limits allow: 24 h buffer before; 24 h meeting and 24 h buffer after.
  await hold(MEMBERS.priya, '2027-05-13T09:00:00Z', '2027-05-14T09:00:00Z', { during: ['2027-05-12T09:00:00Z', '2027-05-15T09:00:00Z'] });
});
