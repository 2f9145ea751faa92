import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCli } from '../helpers/cli.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { createLoad, overlaps, seedLoadOrganization, unrouted } from '../helpers/load.ts';
import { freePort } from '../helpers/ports.ts';

// kill -9 of a real process under a create load. Bookings acknowledged (201) before the kill
// whose routing job the dead process had fetched used to stay DRAFT for about two minutes; a
// live worker (here: the same service restarted) now routes them within 30 s.

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await seedLoadOrganization(db.pool);
});
after(async () => db?.drop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitRouted(ids: string[], ms: number): Promise<{ ms: number; left: string[] }> {
  const t0 = Date.now();
  let left = await unrouted(db.pool, ids);
  while (left.length > 0 && Date.now() - t0 < ms) {
    await sleep(200);
    left = await unrouted(db.pool, left);
  }
  return { ms: Date.now() - t0, left };
}

describe('kill -9 under load', () => {
  it('serve killed mid-load: every acknowledged booking is routed within 30 s of the restart, none overlapping', async () => {
    const port = await freePort();
    const env = { DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'info', RATE_LIMIT_TEST_PER_MINUTE: '1000000' };
    const base = () => `http://127.0.0.1:${port}`;
    const first = startCli(['serve'], env, /booking service ready/, 60_000);
    let load: ReturnType<typeof createLoad> | undefined;
    let heldAtKill: number;
    try {
      await first.started;
      load = createLoad(base, 6);
      // (a busy machine makes fewer: wait for some, whatever the time it takes)
      await until(async () => load!.results.filter((r) => r.status === 201).length >= 25 || false, 60_000);
      // killed while it holds jobs: fetched routing jobs (running, or waiting in its local queue)
      heldAtKill = await until(async () => {
        const r = await db.pool.query(`select count(*)::int as n from graphile_worker._private_jobs where locked_by is not null`);
        return r.rows[0].n > 0 && (r.rows[0].n as number);
      }, 20_000);
    } catch (err) {
      // the start or a wait failed: a live child or load would keep this file running for ever
      first.child.kill('SIGKILL');
      await first.exited;
      await load?.stop();
      throw err;
    }
    first.child.kill('SIGKILL');
    await first.exited;
    const killedAt = Date.now();
    await sleep(300);
    await load!.stop();
    const acknowledged = load!.results.filter((r) => r.status === 201).map((r) => r.bookingId!);
    const notOk = load!.results.filter((r) => r.status !== 201 && r.status !== 0);
    const pending = await unrouted(db.pool, acknowledged);
    console.log(`# ${heldAtKill} jobs locked by the process when it was killed`);
    console.log(
      `# ${load!.results.length} creates sent, ${acknowledged.length} acknowledged (201), ${notOk.length} other answers (${[...new Set(notOk.map((r) => r.status))].join(', ') || 'none'}), ${pending.length} still DRAFT at the kill`,
    );
    assert.ok(acknowledged.length > 20, 'the load made bookings');
    assert.ok(pending.length > 0, 'some acknowledged bookings were left DRAFT by the kill');
    assert.equal(notOk.filter((r) => r.status >= 500).length, 0, 'no 5xx before the kill');

    // the same service restarted
    const second = startCli(['serve'], env, /booking service ready/, 60_000);
    await second.started;
    const restartedAt = Date.now();
    try {
      const { ms, left } = await waitRouted(acknowledged, 30_000);
      console.log(
        `# ${pending.length} acknowledged bookings DRAFT at the kill; all routed ${(ms / 1000).toFixed(1)} s after the restart (${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill)`,
      );
      assert.deepEqual(left, [], `${left.length} acknowledged bookings not routed within 30 s of the restart`);
      assert.ok(Date.now() - restartedAt <= 30_000);
      assert.equal(await overlaps(db.pool), 0, 'no member holds two overlapping bookings');
      const present = await db.pool.query(`select count(*)::int as n from bookings where id = any($1::text[])`, [acknowledged]);
      assert.equal(present.rows[0].n, acknowledged.length, 'every 201 is in the database');
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  it('a worker process killed mid-load: the jobs it held are run by the live serve within 30 s, none overlapping', async () => {
    const port = await freePort();
    const env = { DATABASE_URL: db.url, LOG_LEVEL: 'info', RATE_LIMIT_TEST_PER_MINUTE: '1000000' };
    const known = (await db.pool.query(`select pool_id from worker_heartbeats`)).rows.map((r) => r.pool_id as string);
    const worker = startCli(['worker'], env, /worker ready/, 60_000);
    await worker.started;
    const workerPool = await until(async () => {
      const r = await db.pool.query(`select pool_id from worker_heartbeats where not (pool_id = any($1::text[]))`, [known]);
      return r.rows.length > 0 && (r.rows[0].pool_id as string);
    }, 5000);
    const serve = startCli(['serve'], { ...env, PORT: String(port), WORKER_CONCURRENCY: '4' }, /booking service ready/, 60_000);
    try {
      await serve.started;
      const load = createLoad(() => `http://127.0.0.1:${port}`, 6);
      await until(async () => load.results.filter((r) => r.status === 201).length >= 25 || false, 60_000);
      const heldAtKill = await until(async () => {
        const r = await db.pool.query(`select count(*)::int as n from graphile_worker._private_jobs where locked_by = $1`, [workerPool]);
        return r.rows[0].n > 0 && (r.rows[0].n as number);
      }, 20_000);
      worker.child.kill('SIGKILL');
      await worker.exited;
      const killedAt = Date.now();
      await sleep(1000);
      await load.stop();
      const acknowledged = load.results.filter((r) => r.status === 201).map((r) => r.bookingId!);
      const fivexx = load.results.filter((r) => r.status >= 500 || r.status === 0).length;
      const { ms, left } = await waitRouted(acknowledged, 30_000);
      console.log(
        `# worker killed holding ${heldAtKill} jobs; ${acknowledged.length} creates acknowledged, ${fivexx} failed; all routed ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`,
      );
      assert.equal(fivexx, 0, 'the API (another process) never failed');
      assert.deepEqual(left, [], `${left.length} acknowledged bookings not routed within 30 s of the kill`);
      assert.ok(ms <= 30_000);
      assert.equal(await overlaps(db.pool), 0, 'no member holds two overlapping bookings');
    } finally {
      serve.child.kill('SIGTERM');
      worker.child.kill('SIGKILL');
      await serve.exited;
    }
  });
});

async function until<T>(fn: () => Promise<T | false>, ms: number): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v !== false) return v;
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await sleep(10);
  }
}
