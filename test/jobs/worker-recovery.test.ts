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

it('unlocks the jobs of a pool that stopped beating, and a live worker runs them; a live or fresh pool keeps its locks', async () => {
  const orphan = await seedBooking(t, { status: 'DRAFT', start: '2027-02-08T10:00:00Z', member: MEMBERS.jonas });
  const busy = await seedBooking(t, { status: 'DRAFT', start: '2027-02-08T11:00:00Z', member: MEMBERS.jonas });
  const fresh = await seedBooking(t, { status: 'DRAFT', start: '2027-02-08T12:00:00Z', member: MEMBERS.jonas });
  await q(`insert into worker_heartbeats (pool_id, seen_at) values ('pool-crashed', now() - interval '5 minutes'), ('pool-alive', now())`);
  await lockedRoutingJob(orphan, 'pool-crashed', '2 minutes');
  await lockedRoutingJob(busy, 'pool-alive', '2 minutes'); // a long job of a live process
  await lockedRoutingJob(fresh, 'pool-starting', '5 seconds'); // no heartbeat yet, but locked just now

  assert.deepEqual(await recoverDeadWorkers(t.db.pool), ['pool-crashed']);
  const routed = await waitForStatusChange(t, orphan, 'DRAFT', KEYS.secret, 5_000);
  assert.equal(routed.status, 'SCHEDULED');
  assert.equal(await lockOf(busy), 'pool-alive');
  assert.equal(await lockOf(fresh), 'pool-starting');
  assert.equal((await q(`select 1 from worker_heartbeats where pool_id = 'pool-crashed'`)).rowCount, 0, 'the dead pool is forgotten');
  assert.deepEqual(await recoverDeadWorkers(t.db.pool), [], 'nothing left to recover');
});
