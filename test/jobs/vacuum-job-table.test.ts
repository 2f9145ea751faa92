import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import { createPool, transaction } from '../../src/db/pool.ts';
import { vacuumJobTable } from '../../src/db/queries/job-table.ts';
import { enqueue } from '../../src/db/jobs.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';

// graphile-worker's job table turns over every job; where autovacuum is off nothing would ever
// reclaim its dead rows (src/db/queries/job-table.ts), so a cron job vacuums it every minute.
let t: TestApp;
before(async () => {
  t = await startApp({ worker: true });
});
after(async () => t?.close());

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not in time (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const counts = async () =>
  (
    await t.db.pool.query(
      `select vacuum_count::int as vacuums, analyze_count::int as analyzes
     from pg_stat_user_tables where schemaname = 'graphile_worker' and relname = '_private_jobs'`,
    )
  ).rows[0] as { vacuums: number; analyzes: number };

it("is on the worker's crontab", async () => {
  // graphile-worker registers its crontab once its runner is up, a moment after start
  await until(
    async () =>
      (await t.db.pool.query(`select 1 from graphile_worker._private_known_crontabs where identifier = 'vacuum-job-table'`)).rowCount,
    (n) => n === 1,
    'crontab registered',
  );
});

it('vacuums and analyzes the job table when it runs, and completes', async () => {
  const before = await counts();
  await transaction(t.db.pool, (tx) => enqueue(tx, 'vacuum-job-table', {}));
  await until(counts, (c) => c.vacuums > before.vacuums && c.analyzes > before.analyzes, 'vacuumed and analyzed');
  await until(
    async () =>
      (await t.db.pool.query(`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'vacuum-job-table'`)).rows[0]
        .n as number,
    (n) => n === 0,
    'the job completed',
  );
});

it("a role that does not own the table gets PostgreSQL's warnings back instead of an error", async () => {
  const role = `bs_vacuum_probe_${randomBytes(4).toString('hex')}`;
  await t.db.pool.query(`create role ${role} login password 'probe'`);
  // as a role that runs jobs would: it may use the schema, but does not own the table
  await t.db.pool.query(`grant usage on schema graphile_worker to ${role}`);
  const url = new URL(t.db.url);
  url.username = role;
  url.password = 'probe';
  const pool = createPool(url.toString(), 1);
  try {
    const notices = await vacuumJobTable(pool);
    assert.equal(notices.length, 1, JSON.stringify(notices));
    // PostgreSQL 15: skipping "_private_jobs" --- only table or database owner can vacuum it; 16+: permission denied to vacuum "_private_jobs", skipping it
    assert.match(notices[0], /_private_jobs/);
    assert.match(notices[0], /skipping/);
  } finally {
    await pool.end();
    await t.db.pool.query(`drop owned by ${role}`);
    await t.db.pool.query(`drop role ${role}`);
  }
});
