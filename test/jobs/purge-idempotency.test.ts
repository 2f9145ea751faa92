import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enqueue } from '../../src/db/jobs.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ worker: true });
});
after(async () => t?.close());

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

describe('job queue: purge-idempotency', () => {
  it('a job enqueued in a transaction runs on the worker and purges records older than 24 h', async () => {
    await t.db.pool.query(
      `insert into idempotency_keys (organization_id, mode, key, request_hash, state, created_at)
       values ('org_northwind', 'test', 'old', 'h', 'done', now() - interval '25 hours'),
              ('org_northwind', 'test', 'fresh', 'h', 'done', now() - interval '23 hours')`,
    );
    const client = await t.db.pool.connect();
    try {
      await client.query('begin');
      await enqueue(client, 'purge-idempotency', {});
      await client.query('commit');
    } finally {
      client.release();
    }
    await waitFor(async () => (await t.db.pool.query("select 1 from idempotency_keys where key = 'old'")).rowCount === 0);
    const left = await t.db.pool.query('select key from idempotency_keys');
    assert.deepEqual(left.rows.map((r) => r.key), ['fresh']);
  });

  it('a job enqueued in a transaction that rolls back never exists', async () => {
    const client = await t.db.pool.connect();
    try {
      await client.query('begin');
      await enqueue(client, 'purge-idempotency', { marker: 'rolled-back' });
      await client.query('rollback');
    } finally {
      client.release();
    }
    const jobs = await t.db.pool.query("select count(*)::int n from graphile_worker._private_jobs where payload->>'marker' = 'rolled-back'");
    assert.equal(jobs.rows[0].n, 0);
  });
});
