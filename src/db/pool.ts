import pg from 'pg';

// timestamptz columns come back as Date; bigint counts (COUNT(*)) as numbers, which is safe
// for every count this service makes.
pg.types.setTypeParser(20, (v) => Number(v));

export type Pool = pg.Pool;
/** Anything that can run a query: the pool or a client inside a transaction. */
export type Db = pg.Pool | pg.PoolClient;
/** A client holding an open transaction; repositories that must not run outside one take this. */
export type Tx = pg.PoolClient;

export function createPool(connectionString: string, max = 10): Pool {
  const pool = new pg.Pool({ connectionString, max, application_name: 'booking-service' });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

export async function rows<T>(db: Db, sql: string, params: unknown[] = []): Promise<T[]> {
  const result = await db.query(sql, params);
  return result.rows as T[];
}

export async function one<T>(db: Db, sql: string, params: unknown[] = []): Promise<T | undefined> {
  const result = await db.query(sql, params);
  return result.rows[0] as T | undefined;
}

export async function exec(db: Db, sql: string, params: unknown[] = []): Promise<number> {
  const result = await db.query(sql, params);
  return result.rowCount ?? 0;
}

/** Runs fn in a transaction on a dedicated client; commits on success, rolls back on any throw. */
export async function transaction<T>(pool: Pool, fn: (tx: Tx) => Promise<T>, isolation?: 'serializable' | 'repeatable read'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(isolation ? `begin isolation level ${isolation}` : 'begin');
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
