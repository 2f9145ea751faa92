import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { recoverDeadWorkers } from '../../src/jobs/heartbeat.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { NOW, seedBooking, waitForStatusChange } from '../http/bookings-helpers.ts';

// graphile-worker 0.17 keeps the jobs of a process that died locked for 4 hours (with its local
// queue, up to a batch of them, fetched but never started). Heartbeats let a live worker take
// them over within about two minutes instead.
let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW, worker: true });
});
after(async () => t.close());

const q = (sql: string, params: unknown[] = []) => t.db.pool.query(sql, params);

/** A routing job as a process left it: fetched (locked by its pool) `ago` before it died. */
async function lockedRoutingJob(bookingId: string, pool: string, ago: string): Promise<void> {
  // queued for later first, so that no live worker takes it before it is locked
  await q(`select graphile_worker.add_job('route-booking', json_build_object('bookingId', $1::text), run_at => now() + interval '1 hour', job_key => $1)`, [bookingId]);
  await q(`update graphile_worker._private_jobs set locked_by = $2, locked_at = now() - $3::interval, run_at = now() where key = $1`, [bookingId, pool, ago]);
}

const lockOf = async (bookingId: string) => (await q('select locked_by from graphile_worker.jobs where key = $1', [bookingId])).rows[0]?.locked_by ?? null;

it('the running worker beats for its pool', async () => {
  for (let i = 0; i < 100; i++) {
    if ((await q(`select 1 from worker_heartbeats where seen_at > now() - interval '30 seconds'`)).rowCount) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('no heartbeat');
});

it('unlocks the jobs of a pool that stopped beating, and a live worker runs them; live, fresh and unknown pools keep theirs', async () => {
  const at = (h: number) => `2027-02-08T${String(h).padStart(2, '0')}:00:00Z`;
  const [orphan, busy, fresh, older, ancient] = await Promise.all([10, 11, 12, 13, 14].map((h) => seedBooking(t, { status: 'DRAFT', start: at(h), member: MEMBERS.jonas })));
  await q(`insert into worker_heartbeats (pool_id, seen_at) values ('pool-crashed', now() - interval '5 minutes'), ('pool-alive', now())`);
  await lockedRoutingJob(orphan!, 'pool-crashed', '2 minutes');
  await lockedRoutingJob(busy!, 'pool-alive', '2 minutes'); // a long job of a live process
  await lockedRoutingJob(fresh!, 'pool-starting', '5 seconds'); // locked just now, before its first beat
  await lockedRoutingJob(older!, 'pool-previous-release', '2 minutes'); // a process that never beats: alive, presumably
  await lockedRoutingJob(ancient!, 'pool-gone', '40 minutes'); // ... but not for this long

  // right after start (or an outage) this process's beats have not reached the database for a
  // minute yet: every pool may merely not have beaten again, so nothing is decided
  assert.deepEqual(await recoverDeadWorkers(t.db.pool), []);
  assert.equal(await lockOf(orphan!), 'pool-crashed');

  const later = Date.now() + 120_000;
  assert.deepEqual((await recoverDeadWorkers(t.db.pool, later)).sort(), ['pool-crashed', 'pool-gone']);
  for (const id of [orphan!, ancient!]) assert.equal((await waitForStatusChange(t, id, 'DRAFT', KEYS.secret, 5_000)).status, 'SCHEDULED');
  assert.equal(await lockOf(busy!), 'pool-alive');
  assert.equal(await lockOf(fresh!), 'pool-starting');
  assert.equal(await lockOf(older!), 'pool-previous-release');
  assert.equal((await q(`select 1 from worker_heartbeats where pool_id = 'pool-crashed'`)).rowCount, 0, 'the dead pool is forgotten');
  assert.deepEqual(await recoverDeadWorkers(t.db.pool, later), [], 'nothing left to recover');
});
