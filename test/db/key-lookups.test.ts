import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Tx } from '../../src/db/pool.ts';
import { one, transaction } from '../../src/db/pool.ts';
import { lockForChange, teamOf } from '../../src/db/queries/bookings.ts';
import { meetingsToWrite, meetingState } from '../../src/db/queries/calendar-writes.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { testSeed } from '../helpers/fixtures.ts';
import { insertBooking } from '../domain/email/booking-rows.ts';

// The lookups every change makes read bookings by primary key, whatever PostgreSQL plans. The
// table here has no statistics (never analyzed: a new deployment, or autovacuum off, as the soak
// bench found), which is when a planner rated a composite (organization_id, mode, ...) index as
// good as the key, or hash-joined a scan of all bookings, and read every booking of the
// organization at each change. Each call is made eight times: PostgreSQL switches a prepared
// statement to its generic plan after five.
const BOOKINGS = 2000;
const CALLS = 8;
let db: TestDatabase;
let chain: string[];

before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
  await db.pool.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, host_ids)
     select 'bkg_bulk_' || n, 'org_northwind', 'test', 'et_intro_call', 'SCHEDULED',
            timestamptz '2027-01-04 09:00Z' + n * interval '1 hour', timestamptz '2027-01-04 09:30Z' + n * interval '1 hour',
            jsonb_build_object('name', 'Bulk ' || n, 'email', 'bulk' || n || '@example.com'), '{}'
       from generate_series(1, $1) n`,
    [BOOKINGS],
  );
  // a meeting rescheduled twice: first -> second -> third
  const first = await insertBooking(db.pool, { start: '2027-06-01T10:00:00Z' });
  const second = await insertBooking(db.pool, { start: '2027-06-02T10:00:00Z', rescheduledFrom: first });
  const third = await insertBooking(db.pool, { start: '2027-06-03T10:00:00Z', rescheduledFrom: second });
  chain = [first, second, third];
  const analyzed = await one<{ n: number }>(
    db.pool,
    `select count(*) as n from pg_stat_user_tables where relname = 'bookings' and (last_analyze is not null or last_autoanalyze is not null)`,
  );
  assert.equal(Number(analyzed?.n), 0, 'the table must be without statistics for this test to mean anything');
});
after(() => db.drop());

/**
 * What this connection has read of bookings and not yet reported (PostgreSQL's pending counters,
 * pg_stat_xact_user_tables: they may hold earlier transactions' too, and are reported only
 * between transactions, so a difference taken within one transaction is exact).
 */
async function bookingsRead(tx: Tx): Promise<{ seq_scan: number; seq_tup_read: number; idx_tup_fetch: number }> {
  const row = await one<{ seq_scan: number; seq_tup_read: number; idx_tup_fetch: number }>(
    tx,
    `select seq_scan, seq_tup_read, idx_tup_fetch from pg_stat_xact_user_tables where relname = 'bookings'`,
  );
  return { seq_scan: Number(row!.seq_scan), seq_tup_read: Number(row!.seq_tup_read), idx_tup_fetch: Number(row!.idx_tup_fetch) };
}

/** Runs `call` CALLS times in one transaction and answers what it read of bookings. */
function readsOf(call: (tx: Tx) => Promise<unknown>) {
  return transaction(db.pool, async (tx) => {
    const before = await bookingsRead(tx);
    for (let i = 0; i < CALLS; i++) await call(tx);
    const after = await bookingsRead(tx);
    return {
      seq_scan: after.seq_scan - before.seq_scan,
      seq_tup_read: after.seq_tup_read - before.seq_tup_read,
      idx_tup_fetch: after.idx_tup_fetch - before.idx_tup_fetch,
    };
  });
}

it('lockForChange locks one booking by its key, and only the organization and mode it belongs to', async () => {
  const reads = await readsOf((tx) => lockForChange(tx, 'org_northwind', 'test', 'bkg_bulk_7'));
  assert.deepEqual(reads, { seq_scan: 0, seq_tup_read: 0, idx_tup_fetch: CALLS });
  await transaction(db.pool, async (tx) => {
    assert.equal((await lockForChange(tx, 'org_northwind', 'test', 'bkg_bulk_7'))?.id, 'bkg_bulk_7');
    assert.equal(await lockForChange(tx, 'org_globex', 'test', 'bkg_bulk_7'), undefined);
    assert.equal(await lockForChange(tx, 'org_northwind', 'live', 'bkg_bulk_7'), undefined);
    assert.equal(await lockForChange(tx, 'org_northwind', 'test', 'bkg_none'), undefined);
  });
});

it("teamOf reads one booking by its key, and answers only for the booking's organization and mode", async () => {
  const reads = await readsOf((tx) => teamOf(tx, 'org_northwind', 'test', 'bkg_bulk_9'));
  assert.deepEqual(reads, { seq_scan: 0, seq_tup_read: 0, idx_tup_fetch: CALLS });
  assert.equal(await teamOf(db.pool, 'org_northwind', 'test', 'bkg_bulk_9'), 'team_advisors');
  assert.equal(await teamOf(db.pool, 'org_globex', 'test', 'bkg_bulk_9'), undefined);
  assert.equal(await teamOf(db.pool, 'org_northwind', 'live', 'bkg_bulk_9'), undefined);
});

it('meetingsToWrite and meetingState follow a reschedule chain by key, one booking a step', async () => {
  // the chain's three bookings, each found once per call
  const toWrite = await readsOf((tx) => meetingsToWrite(tx, [chain[2]]));
  assert.equal(toWrite.seq_scan, 0);
  assert.equal(toWrite.idx_tup_fetch, 3 * CALLS);
  const state = await readsOf((tx) => meetingState(tx, chain[0]));
  assert.equal(state.seq_scan, 0);
  assert.ok(state.idx_tup_fetch <= 4 * CALLS, `meetingState read ${state.idx_tup_fetch} bookings in ${CALLS} calls`);
  assert.equal((await meetingState(db.pool, chain[0]))?.id, chain[2]);
});
