import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { addJob } from '../../src/jobs/queue.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';

// graphile-worker's job table turns over every job; where autovacuum is off nothing would ever
// reclaim its dead rows (src/db/queries/job-table.ts), so a cron job vacuums it every minute.
let t: TestApp;
before(async () => {
  t = await startApp({ worker: true });
});
after(async () => t?.close());

async function vacuums(): Promise<{ vacuums: number; analyzes: number; dead: number }> {
  const r = await t.db.pool.query(
    `select vacuum_count::int as vacuums, analyze_count::int as analyzes, n_dead_tup::int as dead
       from pg_stat_user_tables where schemaname = 'graphile_worker' and relname = '_private_jobs'`,
  );
  return r.rows[0];
}

it('is on the worker\'s crontab, once a minute', async () => {
  const known = await t.db.pool.query(`select identifier from graphile_worker._private_known_crontabs where identifier = 'vacuum-job-table'`);
  assert.equal(known.rowCount, 1);
});

it('vacuums and analyzes the job table when it runs', async () => {
  // jobs that run and are deleted leave dead rows behind
  const client = await t.db.pool.connect();
  try {
    await client.query('begin');
    for (let i = 0; i < 20; i++) await addJob(client, 'purge-idempotency', { n: i });
    await client.query('commit');
  } finally {
    client.release();
  }
  const before = await vacuums();
  const tx = await t.db.pool.connect();
  try {
    await tx.query('begin');
    await addJob(tx, 'vacuum-job-table', {});
    await tx.query('commit');
  } finally {
    tx.release();
  }
  const until = Date.now() + 15_000;
  let now = before;
  while (Date.now() < until) {
    now = await vacuums();
    if (now.vacuums > before.vacuums && now.analyzes > before.analyzes) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(now.vacuums > before.vacuums, `vacuumed (${JSON.stringify({ before, now })})`);
  assert.ok(now.analyzes > before.analyzes, 'analyzed');
  assert.equal((await t.db.pool.query(`select count(*)::int as n from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'vacuum-job-table')`)).rows[0].n, 0, 'the job itself completed');
});
