import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS, testSeed } from '../helpers/fixtures.ts';

// The database's per-day cap (src/db/functions/insert_hold_within_cap.sql) counts the
// member's active holds that START in the local day [day_from, day_to). Its count also names the
// day as a range of the buffered interval, so that an index finds the day's holds; these
// holds sit on the day's edges to show that this changes nothing about which holds count.
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(() => db.drop());

const DAY_FROM = '2027-06-07T00:00:00Z';
const DAY_TO = '2027-06-08T00:00:00Z';
let n = 0;

async function booking(start: string, end: string): Promise<string> {
  const id = `bkg_daycap_${++n}`;
  await db.pool.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee)
     values ($1, 'org_northwind', 'test', 'et_intro_call', 'SCHEDULED', $2, $3, '{"name":"C","email":"c@example.com"}')`,
    [id, start, end],
  );
  return id;
}

/**
 * A hold of Jonas through the cap check of the day [dayFrom, dayTo) (by default 7 June, also for
 * holds that start on the 6th or the 8th: the day is the one whose count is asked about): true
 * when it was written.
 */
async function holdWithinCap(
  start: string,
  end: string,
  blocked: [string, string],
  cap: number,
  day: [string, string] = [DAY_FROM, DAY_TO],
): Promise<boolean> {
  const id = await booking(start, end);
  const r = await db.pool.query(`select insert_hold_within_cap($1, $2, 'test', $3, tstzrange($4, $5), $6, $7, $8) as held`, [
    id,
    MEMBERS.jonas,
    start,
    blocked[0],
    blocked[1],
    day[0],
    day[1],
    cap,
  ]);
  return r.rows[0].held as boolean;
}

it('counts holds starting in the day, not holds whose buffers reach into it', async () => {
  // the day before, ending at 23:50 with a 30-minute buffer after: overlaps the day, starts before it
  assert.equal(
    await holdWithinCap('2027-06-06T23:20:00Z', '2027-06-06T23:50:00Z', ['2027-06-06T23:20:00Z', '2027-06-07T00:20:00Z'], 1),
    true,
  );
  // the next day at 00:00 with a 30-minute buffer before: overlaps the day, starts after it
  assert.equal(
    await holdWithinCap('2027-06-08T00:00:00Z', '2027-06-08T00:30:00Z', ['2027-06-07T23:30:00Z', '2027-06-08T00:30:00Z'], 1),
    true,
  );
  // neither counted: the day's first hold fits a cap of 1
  assert.equal(
    await holdWithinCap('2027-06-07T10:00:00Z', '2027-06-07T10:30:00Z', ['2027-06-07T10:00:00Z', '2027-06-07T10:30:00Z'], 1),
    true,
  );
  // and now the day is full
  assert.equal(
    await holdWithinCap('2027-06-07T12:00:00Z', '2027-06-07T12:30:00Z', ['2027-06-07T12:00:00Z', '2027-06-07T12:30:00Z'], 1),
    false,
  );
});

it("counts holds starting at the day's first instant and in its last millisecond, without buffers", async () => {
  const day: [string, string] = ['2027-06-14T00:00:00Z', '2027-06-15T00:00:00Z'];
  const first = ['2027-06-14T00:00:00Z', '2027-06-14T00:20:00Z'] as const;
  const last = ['2027-06-14T23:59:59.999Z', '2027-06-15T00:19:59.999Z'] as const;
  assert.equal(await holdWithinCap(first[0], first[1], [first[0], first[1]], 2, day), true);
  assert.equal(await holdWithinCap(last[0], last[1], [last[0], last[1]], 2, day), true);
  // both counted: the day is full at 2
  assert.equal(
    await holdWithinCap('2027-06-14T12:00:00Z', '2027-06-14T12:30:00Z', ['2027-06-14T12:00:00Z', '2027-06-14T12:30:00Z'], 2, day),
    false,
  );
  assert.equal(
    await holdWithinCap('2027-06-14T12:00:00Z', '2027-06-14T12:30:00Z', ['2027-06-14T12:00:00Z', '2027-06-14T12:30:00Z'], 3, day),
    true,
  );
  // and the next day does not count the one that runs into it
  const next: [string, string] = ['2027-06-15T00:00:00Z', '2027-06-16T00:00:00Z'];
  assert.equal(
    await holdWithinCap('2027-06-15T09:00:00Z', '2027-06-15T09:30:00Z', ['2027-06-15T09:00:00Z', '2027-06-15T09:30:00Z'], 1, next),
    true,
  );
});

it('counts every hold of the day up to the cap, and no more', async () => {
  const cap = 4; // one hold (10:00) is already in 7 June
  assert.equal(
    await holdWithinCap('2027-06-07T00:20:00Z', '2027-06-07T00:40:00Z', ['2027-06-07T00:20:00Z', '2027-06-07T00:40:00Z'], cap),
    true,
  );
  assert.equal(
    await holdWithinCap('2027-06-07T23:00:00Z', '2027-06-07T23:29:00Z', ['2027-06-07T23:00:00Z', '2027-06-07T23:29:00Z'], cap),
    true,
  );
  assert.equal(
    await holdWithinCap('2027-06-07T14:00:00Z', '2027-06-07T14:30:00Z', ['2027-06-07T14:00:00Z', '2027-06-07T14:30:00Z'], cap),
    true,
  );
  // 10:00, 00:20, 23:00 and 14:00 fill a cap of 4
  assert.equal(
    await holdWithinCap('2027-06-07T16:00:00Z', '2027-06-07T16:30:00Z', ['2027-06-07T16:00:00Z', '2027-06-07T16:30:00Z'], cap),
    false,
  );
  // the holds reaching in from either side never counted: with a cap of 5 there is room for one more
  assert.equal(
    await holdWithinCap('2027-06-07T16:00:00Z', '2027-06-07T16:30:00Z', ['2027-06-07T16:00:00Z', '2027-06-07T16:30:00Z'], 5),
    true,
  );
});

it('an inactive hold in the day does not count', async () => {
  await db.pool.query(
    `update booking_members set active = false where booking_id = (select booking_id from booking_members
                        where member_id = $1 and start_time = '2027-06-07T16:00:00Z' and active)`,
    [MEMBERS.jonas],
  );
  assert.equal(
    await holdWithinCap('2027-06-07T18:00:00Z', '2027-06-07T18:30:00Z', ['2027-06-07T18:00:00Z', '2027-06-07T18:30:00Z'], 5),
    true,
  );
});
