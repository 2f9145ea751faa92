import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { LIVENESS_LOCK_NAMESPACE } from '../../src/db/queries/worker-heartbeats.ts';
import { recoverDeadWorkers } from '../../src/jobs/heartbeat.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { NOW, seedBooking, waitForStatusChange } from '../http/bookings-helpers.ts';

// graphile-worker 0.17 keeps the jobs of a process that died locked for 4 hours (with its local
// queue, up to a batch of them, fetched but never started). A worker process holds an advisory
// lock on a connection of its own; a pool whose lock has been free for 10 s has its jobs
// unlocked, and a live worker runs them. The kill -9 of a real process is in
// test/faults/crash-recovery.test.ts.
let t: TestApp;
let holder: pg.Client;
before(async () => {
  t = await startApp({ now: NOW, worker: true });
  holder = new pg.Client({ connectionString: t.db.url });
  await holder.connect();
});
after(async () => {
  await holder.end();
  await t.close();
});

const q = (sql: string, params: unknown[] = []) => t.db.pool.query(sql, params);

/** A routing job as a process left it: fetched (locked by its pool) `ago` before it died. */
async function lockedRoutingJob(bookingId: string, pool: string, ago: string): Promise<void> {
  // queued for later first, so that no live worker takes it before it is locked
  await q(
    `select graphile_worker.add_job('route-booking', json_build_object('bookingId', $1::text), run_at => now() + interval '1 hour', job_key => $1)`,
    [bookingId],
  );
  await q(`update graphile_worker._private_jobs set locked_by = $2, locked_at = now() - $3::interval, run_at = now() where key = $1`, [
    bookingId,
    pool,
    ago,
  ]);
}

const lockOf = async (bookingId: string) =>
  (await q('select locked_by from graphile_worker.jobs where key = $1', [bookingId])).rows[0]?.locked_by ?? null;
const poolRow = async (pool: string) => (await q('select lock_key, lost_at from worker_heartbeats where pool_id = $1', [pool])).rows[0];

it('the running worker holds its liveness lock and names it in its pool row', async () => {
  for (let i = 0; i < 100; i++) {
    const found = await q(
      `select h.pool_id from worker_heartbeats h join pg_locks l on l.locktype = 'advisory' and l.granted and l.objsubid = 2
         and l.classid = $1::bigint::oid and l.objid = h.lock_key::bigint::oid`,
      [LIVENESS_LOCK_NAMESPACE],
    );
    if (found.rowCount) {
      assert.equal((await q('select worker_pool_is_alive($1) as alive', [found.rows[0].pool_id])).rows[0].alive, true);
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('no pool with a held liveness lock');
});

it('unlocks the jobs of a pool whose lock has been free for 10 s, and a live worker runs them; live and unknown pools keep theirs', async () => {
  const at = (h: number) => `2027-02-08T${String(h).padStart(2, '0')}:00:00Z`;
  const [orphan, busy, fresh, older, ancient, oldDead] = await Promise.all(
    [10, 11, 12, 13, 14, 15].map((h) => seedBooking(t, { status: 'DRAFT', start: at(h), member: MEMBERS.jonas })),
  );
  // a live process: this test's session holds lock 4242
  await holder.query('select pg_advisory_lock($1, 4242)', [LIVENESS_LOCK_NAMESPACE]);
  await q(`insert into worker_heartbeats (pool_id, lock_key) values ('pool-crashed', 4141), ('pool-alive', 4242)`);
  await q(
    `insert into worker_heartbeats (pool_id, seen_at) values ('pool-old-release', now()), ('pool-old-release-dead', now() - interval '5 minutes')`,
  );
  await lockedRoutingJob(orphan!, 'pool-crashed', '2 minutes');
  await lockedRoutingJob(busy!, 'pool-alive', '2 hours'); // a long job of a live process
  await lockedRoutingJob(fresh!, 'pool-starting', '5 seconds'); // locked just now, before its row was written
  await lockedRoutingJob(older!, 'pool-old-release', '2 minutes'); // an earlier release's process that still beats
  await lockedRoutingJob(oldDead!, 'pool-old-release-dead', '2 minutes'); // ... and one that stopped beating
  await lockedRoutingJob(ancient!, 'pool-gone', '40 minutes'); // a process that never registered, long ago

  // (the app's own worker makes the same checks every 2 s once it has been up 10 s, so what one
  // call answers depends on whether that ran first: the state is asserted instead)
  const subset = (got: string[], allowed: string[]) =>
    assert.ok(
      got.every((p) => allowed.includes(p)),
      `unexpected: ${got.join(', ')}`,
    );
  // the first check only notes that pool-crashed's lock is free: it may be reconnecting
  subset(await recoverDeadWorkers(t.db.pool), ['pool-gone', 'pool-old-release-dead']);
  assert.notEqual(await lockOf(ancient!), 'pool-gone');
  assert.notEqual(await lockOf(oldDead!), 'pool-old-release-dead');
  assert.equal(await lockOf(orphan!), 'pool-crashed');
  assert.ok((await poolRow('pool-crashed')).lost_at, 'the free lock is noted');
  assert.equal((await poolRow('pool-alive')).lost_at, null);

  // a live process whose connection dropped takes its lock again: the mark is cleared
  await q(`update worker_heartbeats set lost_at = now() - interval '1 hour' where pool_id = 'pool-alive'`);
  subset(await recoverDeadWorkers(t.db.pool), []);
  assert.equal((await poolRow('pool-alive')).lost_at, null);

  // 10 s later (moved back here) its lock is still free: dead
  await q(`update worker_heartbeats set lost_at = now() - interval '11 seconds' where pool_id = 'pool-crashed'`);
  subset(await recoverDeadWorkers(t.db.pool), ['pool-crashed']);
  assert.notEqual(await lockOf(orphan!), 'pool-crashed');
  for (const id of [orphan!, ancient!, oldDead!])
    assert.equal((await waitForStatusChange(t, id, 'DRAFT', KEYS.secret, 5_000)).status, 'SCHEDULED');
  assert.equal(await lockOf(busy!), 'pool-alive');
  assert.equal(await lockOf(fresh!), 'pool-starting');
  assert.equal(await lockOf(older!), 'pool-old-release');
  assert.equal(await poolRow('pool-crashed'), undefined, 'the dead pool is forgotten');
  assert.deepEqual(await recoverDeadWorkers(t.db.pool), [], 'nothing left to recover');
  assert.deepEqual(
    (
      await q(
        `select worker_pool_is_alive('pool-alive') a, worker_pool_is_alive('pool-old-release') b, worker_pool_is_alive('pool-starting') c`,
      )
    ).rows[0],
    { a: true, b: true, c: true },
  );

  // the live process ends its session: its lock is free from that moment
  await holder.query('select pg_advisory_unlock_all()');
  assert.equal((await q(`select worker_pool_is_alive('pool-alive') as a`)).rows[0].a, false);
});
