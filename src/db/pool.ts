import { createHash } from 'node:crypto';
import pg from 'pg';
import { parseExact } from '../lib/exact-json.ts';

// timestamptz columns come back as Date; bigint counts (COUNT(*)) as numbers, which is safe
// for every count this service makes.
pg.types.setTypeParser(20, (v) => Number(v));
// `json` columns hold text as the client sent it (a booking's metadata, an event's payload, an
// idempotent answer): a number a double would change is kept as written (src/lib/exact-json.ts).
// `jsonb` (3802) keeps node-postgres' JSON.parse.
pg.types.setTypeParser(114, parseExact);

export type Pool = pg.Pool;
/** Anything that can run a query: the pool or a client inside a transaction. */
export type Db = pg.Pool | pg.PoolClient;
/** A client holding an open transaction; repositories that must not run outside one take this. */
export type Tx = pg.PoolClient;

// Connections are stamped with the generation they were opened in (see isStalePlan).
let planGeneration = 0;
const generationOf = new WeakMap<object, number>();
const isOutdated = (client: object) => (generationOf.get(client) ?? planGeneration) < planGeneration;

/**
 * How long a connection above the pool's `min` may sit idle before it is closed (pg-pool's
 * default is 10 s; this is HikariCP's and PgBouncer's 10 minutes). A new connection is a new
 * PostgreSQL backend, which loads the catalog, compiles the plpgsql functions and prepares the
 * statements again at its first use: measured on a 2 vCPU machine (2026-11-28), the first 16
 * creates on fresh connections cost PostgreSQL 1.07–1.14 s of CPU, against 0.09–0.18 s once
 * warm, and a create after 12 s without traffic took 64–82 ms with the 10 s default, 18–25 ms
 * with connections kept (docs/operations.md).
 */
export const IDLE_CLOSE_MS = 10 * 60_000;

/**
 * A pool of at most `max` connections that keeps `min` of them open however long they are idle
 * (so a service with little traffic still finds warm ones); those above `min` close after
 * `idleMs` unused.
 */
export function createPool(connectionString: string, max = 10, min = 0, idleMs = IDLE_CLOSE_MS): Pool {
  const pool = new pg.Pool({ connectionString, max, min, idleTimeoutMillis: idleMs, application_name: 'booking-service' });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    generationOf.set(client, planGeneration);
  });
  // pg-pool drops a connection released with an error; a stale statement also condemns those older
  pool.on('release', (err: Error | undefined, client: object) => {
    if (err && isStalePlan(err)) staleSeen(client);
  });
  return pool;
}

/**
 * Opens `count` connections of the pool at once and returns them to it, so that the first
 * requests after a start do not each wait for a connection of their own (with `min` at least
 * `count`, they stay open).
 */
export async function openConnections(pool: Pool, count: number): Promise<void> {
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()));
  for (const client of clients) client.release();
}

const statementNames = new Map<string, string>();

/**
 * The query as a named prepared statement. PostgreSQL then parses each statement once per
 * connection and, once its plans prove stable, stops planning it at every call: planning was
 * about a millisecond of database CPU per booking create when it made thirty-odd statements.
 * (rowsReplanned is the exception, for batch statements.) The name derives from the text, so equal texts share one statement per connection.
 */
export function prepared(sql: string, values: unknown[]): pg.QueryConfig {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `q${createHash('sha1').update(sql).digest('base64url').slice(0, 20)}`;
    statementNames.set(sql, name);
  }
  return { name, text: sql, values };
}

/**
 * SQLSTATE 0A000 from a prepared statement: a migration changed a table the statement reads
 * (`select *`, `returning *`), so its cached plan can no longer answer the columns it
 * announced ("cached plan must not change result type"). The statement stays broken on that
 * connection, so a process that outlives a migration (a rolling deploy) would fail the
 * statement at every use. The connection is dropped instead (pg-pool drops one whose query
 * failed; transaction() below does it for this error), and the next prepares it afresh.
 */
export function isStalePlan(err: unknown): boolean {
  const e = err as { code?: unknown; routine?: unknown } | null;
  // 0A000 is feature_not_supported at large; the plan cache's own check raises this one
  return e?.code === '0A000' && e.routine === 'RevalidateCachedQuery';
}

const CONNECTION_LOSS_CODES = new Set(['57P01', '57P02', '57P03', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
const CONNECTION_LOSS_TEXT = /Connection terminated|not queryable|terminating connection|Connection ended|ECONNRESET|ECONNREFUSED/;

/** An error that says a database connection was lost (terminated, reset, refused), at any depth of its causes. */
export function isConnectionLoss(err: unknown, depth = 0): boolean {
  const e = err as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (!e || depth > 5) return false;
  if (typeof e.code === 'string' && CONNECTION_LOSS_CODES.has(e.code)) return true;
  if (typeof e.message === 'string' && CONNECTION_LOSS_TEXT.test(e.message)) return true;
  return isConnectionLoss(e.cause, depth + 1);
}

/**
 * Every connection opened before `client` prepared its statements before the migration too.
 * Raised to just past the failing connection's generation, so that connections opened after
 * the first failure are not condemned again by failures of older ones.
 */
function staleSeen(client: object): void {
  planGeneration = Math.max(planGeneration, (generationOf.get(client) ?? planGeneration) + 1);
}

/** A client of the pool opened since the last stale statement seen. */
async function freshClient(pool: Pool): Promise<pg.PoolClient> {
  let client = await pool.connect();
  while (isOutdated(client)) {
    client.release(true);
    client = await pool.connect();
  }
  return client;
}

/**
 * A statement on the pool (no transaction to lose). The common path is pg-pool's own query():
 * checking a client out by hand for every statement measured about 10 % more service CPU per
 * booking. A stale statement is tried again once on a connection opened since.
 */
async function queryPrepared(db: Db, sql: string, params: unknown[]): Promise<pg.QueryResult> {
  try {
    return await db.query(prepared(sql, params));
  } catch (err) {
    if (!(db instanceof pg.Pool) || !isStalePlan(err)) throw err;
    const client = await freshClient(db);
    try {
      const result = await client.query(prepared(sql, params));
      client.release();
      return result;
    } catch (again) {
      client.release(again as Error);
      throw again;
    }
  }
}

export async function rows<T>(db: Db, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await queryPrepared(db, sql, params)).rows as T[];
}

export async function one<T>(db: Db, sql: string, params: unknown[] = []): Promise<T | undefined> {
  return (await queryPrepared(db, sql, params)).rows[0] as T | undefined;
}

export async function exec(db: Db, sql: string, params: unknown[] = []): Promise<number> {
  return (await queryPrepared(db, sql, params)).rowCount ?? 0;
}

/**
 * For a statement that joins a batch (arrays unnested) to a table that grows: sent unnamed, so
 * PostgreSQL plans it for the table as it is at every call. A prepared statement keeps the
 * generic plan it settles on at its sixth call, and where statistics are never refreshed
 * (autovacuum off) one settled while the table was small, a hash join over a sequential scan,
 * stays for good: its cost then grows with the table. Planning it each time costs a fraction of
 * a millisecond per batch.
 */
export async function rowsReplanned<T>(db: Db, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(sql, params)).rows as T[];
}

interface Batch {
  items: unknown[];
  flush: (tx: Tx, items: unknown[]) => Promise<void>;
}
/** The open transaction() of each client, with the batches to write right before its COMMIT. */
const open = new WeakMap<object, Map<symbol, Batch>>();

/**
 * Adds `item` to a batch that transaction() writes with one `flush` call right before COMMIT,
 * so work that every change repeats (enqueueing jobs) costs one statement per transaction.
 * Returns false, adding nothing, when `db` is not inside transaction(): the caller then writes
 * at once. Items added inside a SAVEPOINT that is rolled back are still written: do not batch there.
 */
export function batchUntilCommit<T>(db: Db, key: symbol, item: T, flush: (tx: Tx, items: T[]) => Promise<void>): boolean {
  const batches = open.get(db);
  if (!batches) return false;
  let batch = batches.get(key);
  if (!batch) {
    batch = { items: [], flush: flush as Batch['flush'] };
    batches.set(key, batch);
  }
  batch.items.push(item);
  return true;
}

/** Runs fn in a transaction on a dedicated client; commits on success, rolls back on any throw. */
export async function transaction<T>(pool: Pool, fn: (tx: Tx) => Promise<T>, isolation?: 'serializable' | 'repeatable read'): Promise<T> {
  const client = await freshClient(pool);
  const batches = new Map<symbol, Batch>();
  open.set(client, batches);
  let failure: unknown;
  try {
    await client.query(isolation ? `begin isolation level ${isolation}` : 'begin');
    const result = await fn(client);
    for (const batch of batches.values()) await batch.flush(client, batch.items);
    await client.query('commit');
    return result;
  } catch (err) {
    failure = err;
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    open.delete(client);
    // a stale prepared statement would fail on this connection for good: drop it (isStalePlan)
    client.release(isStalePlan(failure) ? (failure as Error) : undefined);
  }
}
