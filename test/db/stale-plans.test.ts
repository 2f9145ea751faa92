import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Pool } from '../../src/db/pool.ts';
import { createPool, rows, transaction } from '../../src/db/pool.ts';
import { withRetry } from '../../src/domain/bookings/pg-errors.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';

// A process that outlives a migration (a rolling deploy) holds prepared statements whose
// `select *` announced the old columns; PostgreSQL then fails them with 0A000 on that
// connection for good. The service drops such connections and prepares afresh.
let db: TestDatabase;
let pool: Pool;
const SELECT = 'select * from plan_probe order by a';

before(async () => {
  db = await createTestDatabase({ migrate: false });
  await db.pool.query('create table plan_probe (a int)');
  await db.pool.query('insert into plan_probe values (1)');
  pool = createPool(db.url, 3);
});
after(async () => {
  await pool.end();
  await db.drop();
});

/** Prepares the statement on every connection of the pool, in and out of transactions. */
async function warm(): Promise<void> {
  await Promise.all(
    Array.from({ length: 3 }, () =>
      transaction(pool, async (tx) => {
        await rows(tx, SELECT);
        await new Promise((r) => setTimeout(r, 20));
      }),
    ),
  );
  for (let i = 0; i < 6; i++) await rows(pool, SELECT);
}

it('a statement on the pool answers the new columns after a migration', async () => {
  await warm();
  await db.pool.query('alter table plan_probe add column b int default 7');
  assert.deepEqual(await rows(pool, SELECT), [{ a: 1, b: 7 }]);
  // and the other connections, prepared before the migration, are not handed out again
  const seen = await Promise.all(Array.from({ length: 3 }, () => transaction(pool, (tx) => rows(tx, SELECT))));
  for (const r of seen) assert.deepEqual(r, [{ a: 1, b: 7 }]);
});

it('a transaction that meets a stale statement fails once, and the next ones get fresh connections', async () => {
  await warm();
  await db.pool.query('alter table plan_probe add column c int default 8');
  await assert.rejects(
    transaction(pool, (tx) => rows(tx, SELECT)),
    (e: { code?: string }) => e.code === '0A000',
  );
  for (let i = 0; i < 4; i++) assert.deepEqual(await transaction(pool, (tx) => rows(tx, SELECT)), [{ a: 1, b: 7, c: 8 }]);
  assert.deepEqual(await rows(pool, SELECT), [{ a: 1, b: 7, c: 8 }]);
});

it('booking writes retry a transaction that met a stale statement', async () => {
  await warm();
  await db.pool.query('alter table plan_probe add column d int default 9');
  assert.deepEqual(await withRetry(() => transaction(pool, (tx) => rows(tx, SELECT))), [{ a: 1, b: 7, c: 8, d: 9 }]);
});
