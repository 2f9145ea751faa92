import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Logger, runMigrations as runQueueMigrations } from 'graphile-worker';
import { migrate, migrationFiles } from '../../src/db/migrate.ts';
import type { Pool } from '../../src/db/pool.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import { busyRecordHex } from '../domain/availability/scheduling-fixtures.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS, testSeed } from '../helpers/fixtures.ts';

// A database built by the numbered history that src/db/schema.sql replaced (001 … 071, kept
// as test fixtures: the files as they were, applied the way the old `migrate` applied them,
// recorded in schema_migrations) carries on under the new `migrate` with its data, and ends
// up with the same tables, constraints, indexes, triggers and functions as a fresh database.
const OLD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'old-migrations');

async function migrateWithHistory(pool: Pool, upTo = '999'): Promise<void> {
  await pool.query('create table schema_migrations (version text primary key, applied_at timestamptz not null default now())');
  for (const file of fs
    .readdirSync(OLD)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const version = file.replace(/\.sql$/, '');
    if (version > upTo) break;
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(fs.readFileSync(path.join(OLD, file), 'utf8'));
      await client.query('insert into schema_migrations (version) values ($1)', [version]);
      await client.query('commit');
    } finally {
      client.release();
    }
  }
  await runQueueMigrations({ pgPool: pool, logger: new Logger(() => () => {}) });
}

/** Everything of the public schema a migration can make, in an order that does not depend on history. */
async function describeSchema(pool: Pool): Promise<Record<string, unknown[]>> {
  const q = async (sql: string) => (await pool.query(sql)).rows;
  return {
    columns: await q(`select table_name, column_name, ordinal_position, data_type, udt_name, is_nullable, column_default,
                             character_maximum_length, numeric_precision
                        from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`),
    constraints: await q(`select table_name, constraint_name, constraint_type, is_deferrable, initially_deferred
                            from information_schema.table_constraints
                           where table_schema = 'public' and constraint_name not like '%\\_not\\_null' order by 1, 2`),
    definitions: await q(`select conrelid::regclass::text as table_name, conname, pg_get_constraintdef(oid) as definition
                            from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`),
    indexes: await q(`select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by 1, 2`),
    triggers: await q(`select tgrelid::regclass::text as table_name, tgname, pg_get_triggerdef(oid) as definition
                         from pg_trigger where not tgisinternal order by 1, 2`),
    functions: await q(`select p.proname, pg_get_function_identity_arguments(p.oid) as args, pg_get_functiondef(p.oid) as definition
                          from pg_proc p
                         where p.pronamespace = 'public'::regnamespace
                           and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
                         order by 1, 2`),
    extensions: await q(`select extname from pg_extension order by 1`),
  };
}

describe('a database built by the numbered history 001 … 071', () => {
  let old: TestDatabase;
  let fresh: TestDatabase;
  before(async () => {
    [old, fresh] = await Promise.all([createTestDatabase({ migrate: false }), createTestDatabase()]);
  });
  after(async () => {
    await Promise.all([old?.drop(), fresh?.drop()]);
  });

  it('is recognised, keeps its data, and ends with the schema of a fresh database', async () => {
    await migrateWithHistory(old.pool);
    await loadSeed(old.pool, validateSeed(testSeed()));
    await old.pool.query(
      `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee)
       values ('bkg_history', 'org_northwind', 'test', 'et_intro_call', 'SCHEDULED', '2027-06-07T10:00Z', '2027-06-07T10:30Z',
               '{"name":"Ada","email":"ada@example.com"}')`,
    );
    await old.pool.query(
      `insert into booking_members (booking_id, member_id, mode, start_time, during)
       values ('bkg_history', $1, 'test', '2027-06-07T10:00Z', tstzrange('2027-06-07T10:00Z', '2027-06-07T10:30Z'))`,
      [MEMBERS.jonas],
    );
    const snapshot = async () => ({
      bookings: (await old.pool.query('select * from bookings order by id')).rows,
      // the columns the history had (077 adds generated ones, checked below)
      holds: (
        await old.pool.query(
          'select booking_id, member_id, mode, start_time, during, active, created_at from booking_members order by booking_id, member_id',
        )
      ).rows,
      // the columns 081 keeps (its last_booked_at is member_last_booked's now, checked below)
      counts: (
        await old.pool.query('select member_id, mode, period_start, booked from member_booking_counts order by member_id, period_start')
      ).rows,
      members: (await old.pool.query('select * from members order by id')).rows,
      eventTypes: (await old.pool.query('select * from event_types order by id')).rows,
    });
    const before = await snapshot();
    assert.equal(before.counts.length, 1, "the history's hold trigger counted the hold");
    const lastBefore = (await old.pool.query('select last_booked_at from member_booking_counts')).rows[0].last_booked_at as Date;

    const result = await migrate(old.pool);
    // the baseline is not applied over the history; the numbered migrations after it are
    assert.deepEqual(
      result.applied,
      migrationFiles().map((f) => f.replace(/\.sql$/, '')),
      'the baseline is not applied over the history',
    );
    const versions = (await old.pool.query('select version from schema_migrations order by version')).rows.map((r) => r.version);
    assert.ok(versions.includes('baseline') && versions.includes('071_hold_contains_its_start'), versions.join(', '));
    assert.deepEqual(await snapshot(), before);
    // 080 filled member_last_booked from the history's counts
    const backfilled = await old.pool.query('select member_id, mode, last_booked_at from member_last_booked');
    assert.deepEqual(backfilled.rows, [{ member_id: MEMBERS.jonas, mode: 'test', last_booked_at: lastBefore }]);
    const ms = (await old.pool.query('select during_start_ms, during_end_ms, start_ms from booking_members')).rows;
    assert.deepEqual(ms, [{ during_start_ms: 1812362400000, during_end_ms: 1812364200000, start_ms: 1812362400000 }]);
    // the busy days' trigger, created for the first time, filled them from the carried-on hold
    const days = async () =>
      (await old.pool.query(`select member_id, mode, day::text, encode(holds, 'hex') as holds from member_busy_days`)).rows;
    assert.deepEqual(await days(), [
      { member_id: MEMBERS.jonas, mode: 'test', day: '2027-06-07', holds: busyRecordHex(1812362400000, 1_800_000) },
    ]);

    const [oldSchema, freshSchema] = await Promise.all([describeSchema(old.pool), describeSchema(fresh.pool)]);
    for (const key of Object.keys(freshSchema)) assert.deepEqual(oldSchema[key], freshSchema[key], `${key} differ`);
    assert.ok((freshSchema.columns as unknown[]).length > 100 && (freshSchema.indexes as unknown[]).length > 30);
    assert.equal((freshSchema.triggers as unknown[]).length, 5);

    // the functions work on the carried-on data: a second hold of Jonas at that time is refused
    await old.pool.query(
      `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee)
       values ('bkg_after', 'org_northwind', 'test', 'et_intro_call', 'DRAFT', '2027-06-07T10:00Z', '2027-06-07T10:30Z',
               '{"name":"Bo","email":"bo@example.com"}')`,
    );
    const zone = (await old.pool.query('select timezone from members where id = $1', [MEMBERS.jonas])).rows[0].timezone as string;
    const hold = (start: string) =>
      old.pool.query(
        `select hold_members(booking => 'bkg_after', hold_mode => 'test', starts => $2::timestamptz,
                           blocked => tstzrange($2::timestamptz, $2::timestamptz + interval '30 minutes'),
                           candidates => array[$1::uuid], zones => array[$3], day_from => array[$2::timestamptz - interval '12 hours'],
                           day_to => array[$2::timestamptz + interval '12 hours'], collective => false, skip_busy => false) as held`,
        [MEMBERS.jonas, start, zone],
      );
    assert.deepEqual((await hold('2027-06-07T10:15Z')).rows[0].held, [], 'overlaps the carried-on hold');
    assert.deepEqual((await hold('2027-06-07T11:00Z')).rows[0].held, [MEMBERS.jonas]);
    const counted = await old.pool.query('select booked from member_booking_counts where member_id = $1', [MEMBERS.jonas]);
    assert.deepEqual(counted.rows, [{ booked: 2 }], 'the count trigger still counts holds');
    // and the trigger keeps it
    const last = await old.pool.query('select last_booked_at from member_last_booked where member_id = $1', [MEMBERS.jonas]);
    const latest = await old.pool.query('select max(created_at) as at from booking_members where member_id = $1', [MEMBERS.jonas]);
    assert.deepEqual(last.rows, [{ last_booked_at: latest.rows[0].at }]);
    // and the busy days, appended to
    assert.deepEqual(await days(), [
      {
        member_id: MEMBERS.jonas,
        mode: 'test',
        day: '2027-06-07',
        holds: busyRecordHex(1812362400000, 1_800_000) + busyRecordHex(1812366000000, 1_800_000),
      },
    ]);

    // a second migrate changes nothing; in particular it does not rebuild the busy days again
    // (a rebuild keeps hold writes out while it runs), which this emptied table would show
    await old.pool.query('delete from member_busy_days');
    assert.deepEqual((await migrate(old.pool)).applied, [], 'a second migrate changes nothing');
    assert.deepEqual(await days(), []);
  });

  it('refuses a database that stopped before the end of the history, changing nothing', async () => {
    const partial = await createTestDatabase({ migrate: false });
    try {
      await migrateWithHistory(partial.pool, '065_booking_writes_in_sql');
      const tables = async () => (await partial.pool.query(`select count(*)::int n from pg_tables where schemaname = 'public'`)).rows[0].n;
      const count = await tables();
      await assert.rejects(migrate(partial.pool), /stopped at migration 065_booking_writes_in_sql, before 071_hold_contains_its_start/);
      assert.equal(await tables(), count);
      const versions = (await partial.pool.query('select version from schema_migrations')).rows.map((r) => r.version);
      assert.ok(!versions.includes('baseline'));
    } finally {
      await partial.drop();
    }
  });
});
