import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, runMigrations as runQueueMigrations } from 'graphile-worker';
import type { Pool } from './pool.ts';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any constant works; it only has to be the same for every process of this service.
const LOCK_ID = 0x626f6f6b; // "book"
const quietLogger = new Logger(() => () => {});

export interface MigrationResult {
  applied: string[];
}

export function migrationFiles(): string[] {
  return fs.readdirSync(DIR).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
}

/**
 * Applies the numbered SQL files that are not yet recorded, each in its own transaction,
 * under a session advisory lock so processes starting together apply each file once.
 * Then brings the job queue's own schema up to date.
 */
export async function migrate(pool: Pool): Promise<MigrationResult> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(`create table if not exists schema_migrations (
      version text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await client.query('select version from schema_migrations')).rows.map((r) => r.version as string));
    for (const file of migrationFiles()) {
      const version = file.replace(/\.sql$/, '');
      if (done.has(version)) continue;
      const sql = fs.readFileSync(path.join(DIR, file), 'utf8');
      try {
        await client.query('begin');
        await client.query(sql);
        await client.query('insert into schema_migrations (version) values ($1)', [version]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(version);
    }
    await runQueueMigrations({ pgPool: pool, logger: quietLogger });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => {});
    client.release();
  }
  return { applied };
}
