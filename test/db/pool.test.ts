import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Pool } from '../../src/db/pool.ts';
import { createPool, IDLE_CLOSE_MS, openConnections } from '../../src/db/pool.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';

// A connection closed for being idle comes back as a cold PostgreSQL backend, several times
// slower at its first statements: the long-running pools keep some open (src/db/pool.ts).
let db: TestDatabase;
const pools: Pool[] = [];
before(async () => {
  db = await createTestDatabase({ migrate: false });
});
after(async () => {
  for (const pool of pools) await pool.end();
  await db.drop();
});

it('opens the connections asked for at once, and keeps `min` of them however long they are idle', async () => {
  const pool = createPool(db.url, 6, 2, 150);
  pools.push(pool);
  await openConnections(pool, 5);
  assert.equal(pool.totalCount, 5);
  assert.equal(pool.idleCount, 5);
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(pool.totalCount, 2, 'those above min were closed after the idle time');
  assert.equal((await pool.query('select 1 as one')).rows[0].one, 1);
  assert.equal(pool.totalCount, 2, 'a statement takes a kept connection');
});

it("closes idle connections after ten minutes by default, not after pg-pool's ten seconds", async () => {
  assert.equal(IDLE_CLOSE_MS, 600_000);
  const pool = createPool(db.url, 4);
  pools.push(pool);
  await openConnections(pool, 3);
  assert.equal((pool as unknown as { options: { idleTimeoutMillis: number; min: number } }).options.idleTimeoutMillis, IDLE_CLOSE_MS);
  assert.equal(pool.idleCount, 3);
});
