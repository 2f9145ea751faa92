import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, runMigrations as runQueueMigrations } from 'graphile-worker';
import type { Pool, PoolClient } from 'pg';
import { withSessionLock } from './session-lock.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCHEMA_FILE = path.join(HERE, 'schema.sql');
const FUNCTIONS_DIR = path.join(HERE, 'functions');
const MIGRATIONS_DIR = path.join(HERE, 'migrations');
// Any constant works; it only has to be the same for every process of this service.
const LOCK_ID = 0x626f6f6b; // "book"
const quietLogger = new Logger(() => () => {});

/** The version recorded in schema_migrations for src/db/schema.sql. */
export const BASELINE = 'baseline';
/**
 * The last file of the history the baseline replaced (001_foundation … 071): a database that
 * recorded it has exactly the baseline's tables, and carries on from there.
 */
const LAST_OF_HISTORY = '071_hold_contains_its_start';
/** Numbered migrations start after the history the baseline replaced. */
const FIRST_NUMBER = 72;

export interface MigrationResult {
  applied: string[];
}

/** The numbered migrations after the baseline, in the order they apply. */
export function migrationFiles(): string[] {
  const files = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  for (const f of files) {
    const m = /^(\d{3})_[a-z0-9_]+\.sql$/.exec(f);
    if (!m) throw new Error(`src/db/migrations/${f}: a migration is named NNN_lowercase_words.sql`);
    if (Number(m[1]) < FIRST_NUMBER) throw new Error(`src/db/migrations/${f}: numbers below 072 belong to the history schema.sql replaced`);
  }
  return files;
}

interface DbFunction {
  name: string;
  sql: string;
}

/**
 * The files of src/db/functions in the order they are created: a function after every other
 * function its file calls (a name of another file followed by "("), ties by name. PL/pgSQL
 * bodies are only resolved when they run, so the order matters for SQL-language functions,
 * whose bodies PostgreSQL checks at creation, and for triggers created after their function.
 */
export function functionFiles(): DbFunction[] {
  const all = fs
    .readdirSync(FUNCTIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({
      name: f.replace(/\.sql$/, ''),
      sql: fs.readFileSync(path.join(FUNCTIONS_DIR, f), 'utf8'),
    }));
  const body = (f: DbFunction) => f.sql.replace(/--[^\n]*/g, '');
  const calls = new Map(all.map((f) => [f.name, all.filter((g) => g !== f && new RegExp(`\\b${g.name}\\s*\\(`).test(body(f)))]));
  const ordered: DbFunction[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (f: DbFunction, via: string[]) => {
    if (state.get(f.name) === 'done') return;
    if (state.get(f.name) === 'visiting') throw new Error(`src/db/functions: calls in a cycle: ${[...via, f.name].join(' -> ')}`);
    state.set(f.name, 'visiting');
    for (const g of calls.get(f.name)!) visit(g, [...via, f.name]);
    state.set(f.name, 'done');
    ordered.push(f);
  };
  for (const f of all) visit(f, []);
  return ordered;
}

async function inTransaction(client: PoolClient, what: string, work: () => Promise<void>): Promise<void> {
  try {
    await client.query('begin');
    await work();
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw new Error(`${what} failed: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Brings the database to the current schema, under a session advisory lock so processes
 * starting together do the work once:
 * 1. an empty database gets src/db/schema.sql, recorded as `baseline`; a database built by the
 *    old numbered history (001 … 071, recorded in schema_migrations) already has exactly those
 *    tables and is recorded as `baseline` too, keeping its data and its history rows;
 * 2. the numbered files of src/db/migrations (072 and later) not yet recorded, in order, each
 *    in its own transaction;
 * 3. every file of src/db/functions, CREATE OR REPLACE, in one transaction, after the tables
 *    they use are final; an older signature of one of these functions (a parameter list that
 *    changed) is dropped, so the files are the whole truth;
 * 4. the job queue's own schema (graphile-worker's migrations).
 */
export async function migrate(pool: Pool): Promise<MigrationResult> {
  const applied: string[] = [];
  await withSessionLock(pool, LOCK_ID, async (client) => {
    await client.query(`create table if not exists schema_migrations (
      version text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await client.query('select version from schema_migrations')).rows.map((r) => r.version as string));
    if (!done.has(BASELINE)) {
      if (done.has(LAST_OF_HISTORY)) {
        await client.query('insert into schema_migrations (version) values ($1)', [BASELINE]);
      } else if (done.size > 0) {
        const last = [...done].sort().at(-1);
        throw new Error(
          `this database stopped at migration ${last}, before ${LAST_OF_HISTORY}: migrate it with the release ` +
            'that still has the numbered history (001 to 071) first, then with this one',
        );
      } else {
        await inTransaction(client, 'schema.sql', async () => {
          await client.query(fs.readFileSync(SCHEMA_FILE, 'utf8'));
          await client.query('insert into schema_migrations (version) values ($1)', [BASELINE]);
        });
        applied.push(BASELINE);
      }
    }
    for (const file of migrationFiles()) {
      const version = file.replace(/\.sql$/, '');
      if (done.has(version)) continue;
      await inTransaction(client, `migration ${file}`, async () => {
        await client.query(fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8'));
        await client.query('insert into schema_migrations (version) values ($1)', [version]);
      });
      applied.push(version);
    }
    const functions = functionFiles();
    await inTransaction(client, 'src/db/functions', async () => {
      for (const f of functions) {
        await client.query(f.sql).catch((err: Error) => {
          throw new Error(`${f.name}.sql: ${err.message}`, { cause: err });
        });
      }
      // CREATE OR REPLACE rewrites the catalog row of every function it defines, so a function of
      // one of these names that this transaction did not write is an older signature.
      const stale = await client.query<{ fn: string }>(
        `select p.oid::regprocedure::text as fn from pg_proc p
          where p.pronamespace = 'public'::regnamespace and p.proname = any($1::text[])
            and p.xmin <> pg_current_xact_id()::xid`,
        [functions.map((f) => f.name)],
      );
      for (const { fn } of stale.rows) await client.query(`drop function ${fn}`);
    });
    await runQueueMigrations({ pgPool: pool, logger: quietLogger });
  });
  return { applied };
}
