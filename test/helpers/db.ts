import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.ts';
import type { Pool } from '../../src/db/pool.ts';
import { createPool } from '../../src/db/pool.ts';

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests with npm test');
  return url;
}

/**
 * A fresh, migrated database for one test file; drop() removes it. With `template`, a copy of
 * that database instead (file by file, and not migrated again): a template may have no other
 * session, so the sessions open on it are ended first (a pool opens new ones when next asked).
 */
export async function createTestDatabase(opts: { migrate?: boolean; template?: string } = {}): Promise<TestDatabase> {
  const name = `bs_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    if (opts.template === undefined) await admin.query(`create database "${name}"`);
    else {
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [
        opts.template,
      ]);
      await admin.query(`create database "${name}" template "${opts.template}" strategy file_copy`);
    }
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), 10);
  if (opts.migrate !== false && opts.template === undefined) await migrate(pool);
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end().catch(() => {});
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`).catch(() => {});
      await c.end();
    },
  };
}
