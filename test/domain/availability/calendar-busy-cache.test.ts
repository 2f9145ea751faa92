import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { CALENDAR_BUSY_TTL_MS, CalendarBusyCache } from '../../../src/domain/availability/calendar-busy-cache.ts';
import { loadSeed } from '../../../src/domain/seed/load.ts';
import { validateSeed } from '../../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createTestDatabase } from '../../helpers/db.ts';
import { MEMBERS, testSeed } from '../../helpers/fixtures.ts';

// CalendarBusyCache (GET /availability's calendar blocks): what it answers, that it answers from
// memory until invalidated, that a load overtaken by an invalidation is not kept, and its expiry.
// The blocks are written straight to calendar_busy, as a sync stores them, with no announcement:
// only invalidate, clear and the expiry can make the cache read them.
let db: TestDatabase;
const HANK = MEMBERS.otherOrg;
const T = (s: string) => Date.parse(s);
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
  await db.pool.query(
    `insert into calendar_connections (calendar_id, url, username, password_encrypted, password_digest)
     values ('cal_hank_apple', 'https://dav.example/', 'u', 'x', 'x')`,
  );
  await db.pool.query(
    `insert into calendar_resources (calendar_id, href, data, events, skipped) values ('cal_hank_apple', 'a.ics', '', 1, 0)`,
  );
});
after(() => db.drop());

async function block(from: string, to: string): Promise<void> {
  await db.pool.query(
    `insert into calendar_busy (calendar_id, href, member_id, start_time, end_time) values ('cal_hank_apple', 'a.ics', $1, $2, $3)`,
    [HANK, from, to],
  );
}
const clearBlocks = () => db.pool.query('delete from calendar_busy');
/** The blocks overlapping a day, by member, as intervals. */
async function day(cache: CalendarBusyCache, d = '2027-03-01'): Promise<Map<string, { start: number; end: number }[]>> {
  const found = await cache.overlapping(db.pool, [HANK, MEMBERS.amara], T(`${d}T00:00:00Z`), T(`${d}T00:00:00Z`) + 86_400_000);
  const out = new Map<string, { start: number; end: number }[]>();
  for (const [id, { starts, ends }] of found)
    out.set(
      id,
      Array.from(starts, (start, i) => ({ start, end: ends[i] })),
    );
  return out;
}

it('answers the blocks overlapping the window, nested ones too, and an empty list for a member without any', async () => {
  await clearBlocks();
  await block('2027-03-01T09:00:00Z', '2027-03-01T12:00:00Z');
  await block('2027-03-01T10:00:00Z', '2027-03-01T10:30:00Z'); // inside the one before
  await block('2027-02-28T23:00:00Z', '2027-03-01T00:30:00Z'); // reaches in from the day before
  await block('2027-03-02T00:00:00Z', '2027-03-02T01:00:00Z'); // starts where the window ends
  await block('2027-02-28T22:00:00Z', '2027-03-01T00:00:00Z'); // ends where the window starts
  const got = await day(new CalendarBusyCache());
  assert.deepEqual(got.get(HANK), [
    { start: T('2027-02-28T23:00:00Z'), end: T('2027-03-01T00:30:00Z') },
    { start: T('2027-03-01T09:00:00Z'), end: T('2027-03-01T12:00:00Z') },
    { start: T('2027-03-01T10:00:00Z'), end: T('2027-03-01T10:30:00Z') },
  ]);
  assert.deepEqual(got.get(MEMBERS.amara), []);
});

it('may add a block that ends before the window inside a run that reaches it, never one that starts after', async () => {
  await clearBlocks();
  await block('2027-02-27T08:00:00Z', '2027-02-27T09:00:00Z'); // wholly before: left out
  await block('2027-02-28T20:00:00Z', '2027-03-01T02:00:00Z'); // reaches in
  await block('2027-02-28T21:00:00Z', '2027-02-28T22:00:00Z'); // inside the one before, ends before the window
  await block('2027-03-01T08:00:00Z', '2027-03-01T09:00:00Z');
  await block('2027-03-02T00:00:00Z', '2027-03-02T01:00:00Z'); // starts where the window ends: left out
  const got = (await day(new CalendarBusyCache())).get(HANK)!;
  const from = T('2027-03-01T00:00:00Z');
  const overlapping = got.filter((b) => b.end > from);
  assert.deepEqual(overlapping, [
    { start: T('2027-02-28T20:00:00Z'), end: T('2027-03-01T02:00:00Z') },
    { start: T('2027-03-01T08:00:00Z'), end: T('2027-03-01T09:00:00Z') },
  ]);
  // what else it holds ends before the window, and lies between blocks that reach it
  for (const b of got.filter((x) => x.end <= from))
    assert.deepEqual(b, { start: T('2027-02-28T21:00:00Z'), end: T('2027-02-28T22:00:00Z') });
});

it('answers from memory until the member is invalidated or the cache cleared', async () => {
  await clearBlocks();
  const cache = new CalendarBusyCache();
  assert.deepEqual((await day(cache)).get(HANK), []);
  await block('2027-03-01T09:00:00Z', '2027-03-01T10:00:00Z');
  assert.deepEqual((await day(cache)).get(HANK), [], 'kept: nothing announced the change');
  cache.invalidate([MEMBERS.amara]);
  assert.deepEqual((await day(cache)).get(HANK), [], 'another member invalidated');
  cache.invalidate([HANK]);
  assert.equal((await day(cache)).get(HANK)?.length, 1);
  await block('2027-03-01T11:00:00Z', '2027-03-01T12:00:00Z');
  assert.equal((await day(cache)).get(HANK)?.length, 1);
  cache.clear();
  assert.equal((await day(cache)).get(HANK)?.length, 2);
});

it('reads a member again once its entry is older than the expiry', async () => {
  await clearBlocks();
  let now = 0;
  const cache = new CalendarBusyCache(() => now);
  assert.deepEqual((await day(cache)).get(HANK), []);
  await block('2027-03-01T09:00:00Z', '2027-03-01T10:00:00Z');
  now = CALENDAR_BUSY_TTL_MS - 1;
  assert.deepEqual((await day(cache)).get(HANK), []);
  now = CALENDAR_BUSY_TTL_MS;
  assert.equal((await day(cache)).get(HANK)?.length, 1);
});

it('does not keep a load that an invalidation overtook (the sync committed while it read)', async () => {
  await clearBlocks();
  const cache = new CalendarBusyCache();
  // Hold the load inside PostgreSQL: another session locks the table, so the cache's read waits.
  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query('lock table calendar_busy in access exclusive mode');
    const pending = day(cache);
    for (let i = 0; ; i++) {
      const { rows } = await db.pool.query(
        `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%from calendar_busy%'`,
      );
      if (rows.length > 0) break;
      assert.ok(i < 200, 'the load never started waiting');
      await new Promise((r) => setTimeout(r, 10));
    }
    // The "sync" writes a block and commits; its announcement reaches the cache while the load waits.
    await locker.query(
      `insert into calendar_busy (calendar_id, href, member_id, start_time, end_time)
       values ('cal_hank_apple', 'a.ics', $1, '2027-03-01T09:00:00Z', '2027-03-01T10:00:00Z')`,
      [HANK],
    );
    cache.invalidate([HANK]);
    await locker.query('commit');
    assert.equal((await pending).get(HANK)?.length, 1, 'the load itself read after the commit');
    // Had the load been kept, this would still be that answer; it was not, so this reads again.
    await block('2027-03-01T11:00:00Z', '2027-03-01T12:00:00Z');
    assert.equal((await day(cache)).get(HANK)?.length, 2);
  } finally {
    await locker.end();
  }
});
