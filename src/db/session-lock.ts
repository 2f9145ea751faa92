import type pg from 'pg';
import type { Pool } from './pool.ts';

/**
 * Runs `fn` while a connection of the pool holds session advisory lock `key`, waiting for the
 * lock if another session holds it (`migrate`: processes starting together do the work once).
 */
export async function withSessionLock<T>(pool: Pool, key: number, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return (await underSessionLock(pool, key, 'wait', fn)) as T;
}

/**
 * Runs `fn` while a connection of the pool holds session advisory lock `key`; answers undefined,
 * running nothing, when another session holds it (retention: two runs never work at once).
 */
export function trySessionLock<T>(pool: Pool, key: number, fn: (client: pg.PoolClient) => Promise<T>): Promise<T | undefined> {
  return underSessionLock(pool, key, 'try', fn);
}

/**
 * The lock belongs to the connection, so it must not go back to the pool still held: every other
 * process would wait on it (or skip its work) until the pool closed that connection. When the
 * unlock fails (a connection left in a failed transaction, a cancelled statement), the
 * connection is closed instead, which releases the lock with the session.
 */
async function underSessionLock<T>(
  pool: Pool,
  key: number,
  how: 'wait' | 'try',
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T | undefined> {
  const client = await pool.connect();
  let got: boolean;
  try {
    got =
      how === 'wait'
        ? (await client.query('select pg_advisory_lock($1)', [key]), true)
        : (await client.query<{ got: boolean }>('select pg_try_advisory_lock($1) as got', [key])).rows[0]!.got;
  } catch (err) {
    client.release(err as Error); // the connection's state is unknown: it goes
    throw err;
  }
  if (!got) {
    client.release();
    return undefined;
  }
  let broken: Error | undefined;
  try {
    return await fn(client);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [key]).catch((err: Error) => {
      broken = err;
    });
    client.release(broken);
  }
}
