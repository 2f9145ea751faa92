import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { claimSync, failSync, finishSync } from '../../src/db/queries/calendar-sync.ts';
import { needsReauth } from '../../src/db/queries/calendar-writes.ts';
import type { Tx } from '../../src/db/pool.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import { calendarSeed } from '../helpers/calendar-fixtures.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS } from '../helpers/fixtures.ts';

// decisions §7 Status: a write-back refused with 401/403 makes the calendar NEEDS_REAUTH at once.
// A sync that was already running when that happened must not, on finishing, replace it with
// SUCCESS (its success was on credentials the server has since refused) or with ERROR.
const CAL = 'cal_amara_caldav';
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  const seed = calendarSeed([{ id: CAL, url: 'https://dav.example/amara/work/', username: 'amara', password: 'secret' }]);
  await loadSeed(db.pool, validateSeed(seed), { secretKey: Buffer.alloc(32, 7) });
});
after(() => db.drop());

async function inTx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  const tx = await db.pool.connect();
  try {
    await tx.query('begin');
    const out = await fn(tx);
    await tx.query('commit');
    return out;
  } finally {
    tx.release();
  }
}
const status = async () =>
  (
    await db.pool.query<{ sync_status: string; sync_error: string | null }>('select sync_status, sync_error from calendars where id = $1', [
      CAL,
    ])
  ).rows[0];
const success = () => ({
  syncToken: 't1',
  ctag: null,
  expandedFor: MEMBERS.amara,
  expandedTimezone: 'Europe/London',
  windowStart: new Date('2026-11-24'),
  windowEnd: new Date('2027-05-24'),
  at: new Date(),
});

beforeEach(async () => {
  await db.pool.query(`update calendars set sync_status = 'SUCCESS', sync_error = null where id = $1`, [CAL]);
  await db.pool.query(
    'update calendar_connections set sync_lease = null, sync_lease_until = null, write_error = null where calendar_id = $1',
    [CAL],
  );
});

it('a sync that finishes after a write got 401 leaves the calendar NEEDS_REAUTH, with the write’s reason', async () => {
  assert.ok(await inTx((tx) => claimSync(tx, CAL, 'lease-1', 60)));
  assert.equal((await status()).sync_status, 'SYNCING');
  await needsReauth(db.pool, CAL, 'PUT bkg_1.ics: HTTP 401');
  await inTx((tx) => finishSync(tx, CAL, success()));
  assert.deepEqual(await status(), { sync_status: 'NEEDS_REAUTH', sync_error: 'PUT bkg_1.ics: HTTP 401' });
});

it('a sync that fails after a write got 401 does not turn NEEDS_REAUTH into ERROR', async () => {
  assert.ok(await inTx((tx) => claimSync(tx, CAL, 'lease-2', 60)));
  await needsReauth(db.pool, CAL, 'PUT bkg_2.ics: HTTP 403');
  await inTx((tx) => failSync(tx, CAL, 'ERROR', 'REPORT: connection refused'));
  assert.deepEqual(await status(), { sync_status: 'NEEDS_REAUTH', sync_error: 'PUT bkg_2.ics: HTTP 403' });
  // its own 401 still says so, with its reason
  await inTx((tx) => failSync(tx, CAL, 'NEEDS_REAUTH', 'PROPFIND: HTTP 401'));
  assert.deepEqual(await status(), { sync_status: 'NEEDS_REAUTH', sync_error: 'PROPFIND: HTTP 401' });
});

it('without a refused write a sync ends SUCCESS or ERROR as before', async () => {
  assert.ok(await inTx((tx) => claimSync(tx, CAL, 'lease-3', 60)));
  await inTx((tx) => finishSync(tx, CAL, success()));
  assert.deepEqual(await status(), { sync_status: 'SUCCESS', sync_error: null });
  assert.ok(await inTx((tx) => claimSync(tx, CAL, 'lease-4', 60)));
  await inTx((tx) => failSync(tx, CAL, 'ERROR', 'REPORT: HTTP 500'));
  assert.deepEqual(await status(), { sync_status: 'ERROR', sync_error: 'REPORT: HTTP 500' });
});
