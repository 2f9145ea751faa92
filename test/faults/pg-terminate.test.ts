import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { startCli } from '../helpers/cli.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { createLoad, overlaps, seedLoadOrganization, unrouted } from '../helpers/load.ts';
import { freePort } from '../helpers/ports.ts';

// Every PostgreSQL backend of the service's database terminated (pg_terminate_backend) three
// times under a create load: the API fails only requests in flight at those instants, every
// acknowledged booking is in the database and routed afterwards, and the worker (whose
// liveness connection dies too) is not mistaken for a dead one.

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await seedLoadOrganization(db.pool);
});
after(async () => db?.drop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('backends terminated under a create load: 5xx only at the kill instants, every 201 present and routed, no live worker caught', async () => {
  const port = await freePort();
  const serve = startCli(
    ['serve'],
    { DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'info', RATE_LIMIT_TEST_PER_MINUTE: '1000000' },
    /booking service ready/,
    60_000,
  );
  const killer = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  const name = new URL(db.url).pathname.slice(1);
  const kills: Array<{ at: number; terminated: number }> = [];
  try {
    // inside the try: a start or a connection that fails must still stop serve, or its open
    // pipes keep this file's process waiting for ever
    await serve.started;
    await killer.connect();
    const load = createLoad(() => `http://127.0.0.1:${port}`, 6);
    for (let i = 0; i < 3; i++) {
      await sleep(2000);
      const r = await killer.query(
        `select count(*) filter (where pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
        [name],
      );
      kills.push({ at: Date.now(), terminated: r.rows[0].n });
    }
    await sleep(2000);
    await load.stop();

    const acknowledged = load.results.filter((r) => r.status === 201).map((r) => r.bookingId!);
    const failed = load.results.filter((r) => r.status >= 500 || r.status === 0);
    const other = load.results.filter((r) => r.status !== 201 && !(r.status >= 500 || r.status === 0));
    // a request fails only when it was in flight at a kill: it is answered within a second of it
    const atKill = (t: number) => kills.some((k) => t >= k.at - 250 && t <= k.at + 1500);
    const routedIn = await (async () => {
      const t0 = Date.now();
      let left = await unrouted(db.pool, acknowledged);
      while (left.length > 0 && Date.now() - t0 < 30_000) {
        await sleep(200);
        left = await unrouted(db.pool, left);
      }
      return { ms: Date.now() - t0, left };
    })();
    console.log(
      `# ${kills.length} kills terminating ${kills.map((k) => k.terminated).join(', ')} backends; ${load.results.length} creates, ` +
        `${acknowledged.length} acknowledged (201), ${failed.length} 5xx or reset (${[...new Set(failed.map((r) => r.status))].join(', ') || 'none'}); ` +
        `all routed ${(routedIn.ms / 1000).toFixed(1)} s after the load`,
    );
    assert.equal(serve.child.exitCode, null, `serve is still running:\n${serve.output().slice(-3000)}`);
    assert.ok(
      kills.every((k) => k.terminated > 0),
      'each kill terminated backends',
    );
    assert.ok(acknowledged.length > 20, 'the load made bookings');
    assert.deepEqual(
      other.map((r) => r.status),
      [],
      'no 4xx',
    );
    for (const f of failed)
      assert.ok(atKill(f.at), `a ${f.status} at +${f.at - kills[0]!.at} ms from the first kill, not at a kill instant`);
    if (routedIn.left.length > 0) {
      const jobs = await db.pool.query(
        `select j.task_identifier, p.payload, j.locked_by, j.attempts, j.last_error, j.run_at from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id`,
      );
      console.log('# diagnostics: unrouted', routedIn.left.length, JSON.stringify(jobs.rows).slice(0, 3000));
      const hb = await db.pool.query(`select *, worker_pool_is_alive(pool_id) from worker_heartbeats`);
      console.log('# diagnostics: pools', JSON.stringify(hb.rows));
      const act = await db.pool.query(
        `select application_name, state, wait_event, left(query, 120) q, now() - state_change as age from pg_stat_activity where datname = current_database()`,
      );
      console.log('# diagnostics: sessions', JSON.stringify(act.rows));
      const counts = await db.pool.query(
        `select locked_by is not null as locked, attempts, count(*)::int from graphile_worker._private_jobs group by 1, 2`,
      );
      console.log('# diagnostics: jobs', JSON.stringify(counts.rows));
      console.log(
        '# diagnostics: serve errors\n' +
          serve
            .output()
            .split('\n')
            .filter((l) => /"level":[456]0/.test(l))
            .slice(-25)
            .join('\n'),
      );
    }
    assert.deepEqual(routedIn.left, [], 'every acknowledged booking is routed');
    const present = await db.pool.query(`select count(*)::int as n from bookings where id = any($1::text[])`, [acknowledged]);
    assert.equal(present.rows[0].n, acknowledged.length, 'every 201 is in the database');
    assert.equal(await overlaps(db.pool), 0);
    // The worker's liveness connection was terminated too: it took its lock again and nobody
    // declared it dead. Only a pool that graphile-worker gave up (a completion failed at a kill;
    // a new pool replaces it) has its jobs unlocked.
    await sleep(1500);
    const lines = serve
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; pool?: string; pools?: string[] });
    const gaveUp = lines.filter((l) => /pool gave up/.test(l.msg)).map((l) => l.pool!);
    const unlocked = lines.filter((l) => /unlocked the jobs/.test(l.msg)).flatMap((l) => l.pools!);
    console.log(`# pools given up by graphile-worker and replaced: ${gaveUp.length}; pools unlocked: ${unlocked.length}`);
    for (const p of unlocked) assert.ok(gaveUp.includes(p), `${p} was unlocked though it had not given up`);
    const live = await db.pool.query(
      `select count(*)::int as n from worker_heartbeats where worker_pool_is_alive(pool_id) and lock_key is not null`,
    );
    assert.equal(live.rows[0].n, 1, 'one pool registered with its lock held');
  } finally {
    await killer.end().catch(() => {});
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});
