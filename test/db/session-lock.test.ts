import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { trySessionLock, withSessionLock } from '../../src/db/session-lock.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';

// The session advisory locks of `migrate` and retention: held by one pooled connection while the
// work runs, and never back in the pool still held, even when letting go fails.
describe('session advisory locks', () => {
  let t: TestDatabase;
  const KEY = 0x74657374;
  before(async () => {
    t = await createTestDatabase({ migrate: false });
  });
  after(async () => {
    await t.drop();
  });

  /** Whether another session of the database can take the lock now (and it lets go at once). */
  async function free(): Promise<boolean> {
    const other = await t.pool.connect();
    try {
      const got = (await other.query<{ got: boolean }>('select pg_try_advisory_lock($1) as got', [KEY])).rows[0]!.got;
      if (got) await other.query('select pg_advisory_unlock($1)', [KEY]);
      return got;
    } finally {
      other.release();
    }
  }

  it('holds the lock while the work runs and lets go after it', async () => {
    const during = await withSessionLock(t.pool, KEY, async (client) => {
      assert.equal((await client.query('select 1 as one')).rows[0].one, 1);
      return free();
    });
    assert.equal(during, false, 'another session could take the lock during the work');
    assert.equal(await free(), true);
  });

  it('lets go when the work fails', async () => {
    await assert.rejects(
      withSessionLock(t.pool, KEY, async () => {
        throw new Error('the work failed');
      }),
      /the work failed/,
    );
    assert.equal(await free(), true);
  });

  it('waits for a lock another session holds; the try form runs nothing and answers undefined', async () => {
    const other = await t.pool.connect();
    try {
      await other.query('select pg_advisory_lock($1)', [KEY]);
      let ran = false;
      assert.equal(await trySessionLock(t.pool, KEY, async () => (ran = true)), undefined);
      assert.equal(ran, false);
      const waiting = withSessionLock(t.pool, KEY, async () => 'ran after the other let go');
      await new Promise((r) => setTimeout(r, 200));
      await other.query('select pg_advisory_unlock($1)', [KEY]);
      assert.equal(await waiting, 'ran after the other let go');
    } finally {
      other.release();
    }
    assert.equal(await trySessionLock(t.pool, KEY, async () => 'ran'), 'ran');
    assert.equal(await free(), true);
  });

  it('a connection whose unlock fails is closed, not pooled, so the lock goes with it', async () => {
    for (const lock of [withSessionLock, trySessionLock]) {
      let pid = 0;
      await lock(t.pool, KEY, async (client) => {
        pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
        // the work leaves its connection in a failed transaction: every statement fails until a rollback
        await client.query('begin');
        await client.query('select 1 / 0').catch(() => {});
      });
      // the pool holds no connection to that session any more, and the server lets it go (the close is
      // asynchronous), taking the lock with it
      const pooled = await Promise.all(Array.from({ length: t.pool.idleCount + 1 }, () => t.pool.connect()));
      try {
        const pids = await Promise.all(
          pooled.map(async (c) => (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid),
        );
        assert.ok(!pids.includes(pid), 'the connection went back to the pool');
      } finally {
        for (const c of pooled) c.release();
      }
      for (let i = 0; ; i++) {
        const alive = await t.pool.query('select count(*)::int as n from pg_stat_activity where pid = $1', [pid]);
        if (alive.rows[0].n === 0) break;
        assert.ok(i < 50, `session ${pid} still open after 1 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(await free(), true, 'the lock was released with the connection');
    }
  });
});
