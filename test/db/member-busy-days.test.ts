import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS, testSeed } from '../helpers/fixtures.ts';
import type { TestBooking } from '../domain/availability/scheduling-fixtures.ts';
import { busyRecordHex, insertBooking } from '../domain/availability/scheduling-fixtures.ts';
import { busyOfMembers } from '../../src/db/queries/busy.ts';

// member_busy_days (migration 082) is what availability and free/busy read over a range of days;
// trigger booking_members_busy_days keeps it from the holds. Whatever happens to the holds, it
// must hold exactly one record per active hold, under the UTC day of the hold's start, and no
// row for a day without one.
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(() => db.drop());
beforeEach(async () => {
  await db.pool.query('delete from booking_members');
  await db.pool.query('delete from bookings');
});

/** A 30-minute intro call of Jonas's at `start` (test mode, scheduled), with what differs. */
const hold = (start: string, more: Partial<TestBooking> = {}) =>
  insertBooking(db.pool, { eventTypeId: 'et_intro_call', memberIds: [MEMBERS.jonas], start, minutes: 30, ...more });

/** The table as it is, and as it should be computed from the holds: records sorted within a day. */
async function keptAndRecomputed() {
  const kept = await db.pool.query(
    `select member_id, mode, day::text,
            array(select encode(substring(holds from i + 1 for 16), 'hex') from generate_series(0, length(holds) - 16, 16) i order by 1) as holds
       from member_busy_days order by 1, 2, 3`,
  );
  const recomputed = await db.pool.query(
    `select member_id, mode, (start_time at time zone 'UTC')::date::text as day,
            array_agg(encode(hold_busy_record(during_start_ms, during_end_ms, start_ms), 'hex')
                      order by encode(hold_busy_record(during_start_ms, during_end_ms, start_ms), 'hex')) as holds
       from booking_members where active group by 1, 2, 3 order by 1, 2, 3`,
  );
  return { kept: kept.rows, recomputed: recomputed.rows };
}

async function assertInStep(what: string) {
  const { kept, recomputed } = await keptAndRecomputed();
  assert.deepEqual(kept, recomputed, what);
}

it('files each active hold under its start day, and drops a day whose last hold is released', async () => {
  // 23:30 UTC with a 60-minute buffer after: the interval runs into the next day, the record
  // stays under the day of the start
  const late = await hold('2027-06-07T23:30:00Z', { bufferBefore: 15, bufferAfter: 60 });
  const early = await hold('2027-06-07T09:00:00Z');
  await hold('2027-06-07T11:00:00Z', { mode: 'live' });
  await hold('2027-06-08T09:00:00Z', { memberIds: [MEMBERS.priya], status: 'CANCELLED' });
  await assertInStep('after the inserts');
  const days = await db.pool.query(`select member_id, mode, day::text, length(holds) as bytes from member_busy_days order by 2, 3`);
  assert.deepEqual(days.rows, [
    { member_id: MEMBERS.jonas, mode: 'live', day: '2027-06-07', bytes: 16 },
    { member_id: MEMBERS.jonas, mode: 'test', day: '2027-06-07', bytes: 32 },
  ]);
  // the record of the late hold: its interval's start (15 min before 23:30), length 105 min,
  // the booking's start 15 min after the interval's start
  const record = (
    await db.pool.query(
      `select encode(hold_busy_record(during_start_ms, during_end_ms, start_ms), 'hex') as r from booking_members where booking_id = $1`,
      [late],
    )
  ).rows[0].r;
  assert.equal(record, busyRecordHex(Date.parse('2027-06-07T23:15:00Z'), 105 * 60_000, 15 * 60_000));

  await db.pool.query(`update booking_members set active = false where booking_id = $1`, [early]);
  await assertInStep('after releasing one of two');
  await db.pool.query(`update booking_members set active = false where booking_id = $1`, [late]);
  await assertInStep('after releasing the other');
  const left = await db.pool.query(`select mode from member_busy_days`);
  assert.deepEqual(left.rows, [{ mode: 'live' }], "the test day's row is gone with its last hold");
});

it('follows a hold that is deleted, moved, or made active again', async () => {
  const a = await hold('2027-06-09T10:00:00Z', { memberIds: [MEMBERS.jonas, MEMBERS.priya], minutes: 60 });
  const b = await hold('2027-06-09T12:00:00Z', { minutes: 60 });
  await assertInStep('after the inserts');
  await db.pool.query(`delete from booking_members where booking_id = $1 and member_id = $2`, [a, MEMBERS.priya]);
  await assertInStep('after a delete');
  await db.pool.query(
    `update booking_members set start_time = start_time + interval '1 day', during = tstzrange(lower(during) + interval '1 day', upper(during) + interval '1 day')
      where booking_id = $1`,
    [b],
  );
  await assertInStep('after moving a hold to the next day');
  await db.pool.query(`update booking_members set active = false where booking_id = $1`, [b]);
  await db.pool.query(`update booking_members set active = true where booking_id = $1`, [b]);
  await assertInStep('after a release and a re-activation');
  await db.pool.query(`delete from bookings where id = $1`, [a]); // the hold goes by cascade
  await assertInStep('after a booking is deleted');
});

it('loses no change when two transactions change the same day at once', async () => {
  const held = await hold('2027-06-10T09:00:00Z');
  const [one, two] = [await db.pool.connect(), await db.pool.connect()];
  try {
    // one appends a hold to the day and keeps its transaction open; two releases another hold of
    // the same day, so waits for one's row lock, then works on the row one committed
    await one.query('begin');
    await one.query(`insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee)
                     values ('bkg_one', 'org_northwind', 'test', 'et_intro_call', 'SCHEDULED', '2027-06-10T11:00Z', '2027-06-10T11:30Z', '{"name":"A","email":"a@example.com"}')`);
    await one.query(
      `insert into booking_members (booking_id, member_id, mode, start_time, during)
                     values ('bkg_one', $1, 'test', '2027-06-10T11:00Z', tstzrange('2027-06-10T11:00Z', '2027-06-10T11:30Z'))`,
      [MEMBERS.jonas],
    );
    await two.query('begin');
    const released = two.query(`update booking_members set active = false where booking_id = $1`, [held]);
    let waiting = 0;
    for (let tries = 0; tries < 200 && waiting === 0; tries++) {
      await new Promise((r) => setTimeout(r, 10));
      const r = await db.pool.query(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like 'update booking_members%'`,
      );
      waiting = r.rows[0].n;
    }
    assert.equal(waiting, 1, "the release waits for the other transaction's day row");
    await one.query('commit');
    await released;
    await two.query('commit');
  } finally {
    one.release();
    two.release();
  }
  await assertInStep('after both committed');
  const day = await db.pool.query(`select length(holds) as bytes from member_busy_days`);
  assert.deepEqual(day.rows, [{ bytes: 16 }], 'the appended hold alone');
});

it("busyOfMembers hands a range of days' holds over sorted by start, however they were made", async () => {
  // made out of order within each day and across days; buffers differ, so the booking starts
  // (the interval's start plus its buffer before) must stay with their own intervals
  const made = [
    ['2027-06-15T15:00:00Z', 0],
    ['2027-06-14T16:00:00Z', 10],
    ['2027-06-14T09:00:00Z', 0],
    ['2027-06-15T08:00:00Z', 30],
    ['2027-06-14T12:00:00Z', 5],
    ['2027-06-16T07:00:00Z', 0],
    ['2027-06-15T11:00:00Z', 15],
  ] as const;
  for (const [start, bufferBefore] of made) await hold(start, { bufferBefore });
  const rows = await busyOfMembers(
    db.pool,
    [MEMBERS.jonas],
    'test',
    new Date('2027-06-13T00:00:00Z'),
    new Date('2027-06-18T00:00:00Z'),
    null,
  );
  const bookings = rows.filter((r) => r.kind === 'booking');
  assert.equal(bookings.length, 1);
  const expected = made.map(([start, before]) => ({ start: Date.parse(start), before: before * 60_000 })).sort((a, b) => a.start - b.start);
  assert.deepEqual(
    Array.from(bookings[0].booking_starts),
    expected.map((e) => e.start),
  );
  assert.deepEqual(
    Array.from(bookings[0].starts),
    expected.map((e) => e.start - e.before),
  );
  assert.deepEqual(
    Array.from(bookings[0].ends),
    expected.map((e) => e.start + 30 * 60_000),
  );
});
