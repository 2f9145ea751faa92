import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { COLUMNS } from '../../src/db/schema.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';

// The row types of src/db/schema.ts are derived from COLUMNS; this holds COLUMNS to the
// columns a migrated database really has, so a migration that renames, adds, drops, retypes or
// makes nullable a column fails here until schema.ts follows it.
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(() => db.drop());

/** table -> column -> "udt[ null]", in column order, as COLUMNS writes it. */
async function liveColumns(): Promise<Record<string, Record<string, string>>> {
  const { rows } = await db.pool.query<{ table_name: string; column_name: string; type: string }>(
    `select table_name, column_name,
            case when data_type = 'ARRAY' then substr(udt_name, 2) || '[]' else udt_name end
              || case when is_nullable = 'YES' then ' null' else '' end as type
       from information_schema.columns
      where table_schema = 'public' and table_name <> 'schema_migrations'
      order by table_name, ordinal_position`,
  );
  const out: Record<string, Record<string, string>> = {};
  for (const r of rows) (out[r.table_name] ??= {})[r.column_name] = r.type;
  return out;
}

it('COLUMNS names every table of the database, and no other', async () => {
  assert.deepEqual(Object.keys(COLUMNS).sort(), Object.keys(await liveColumns()).sort());
});

it('each table has exactly these columns, in this order, of these types and nullability', async () => {
  const live = await liveColumns();
  for (const [table, columns] of Object.entries(COLUMNS)) {
    assert.deepEqual(Object.entries(columns), Object.entries(live[table] ?? {}), `table ${table}`);
  }
});

it('a renamed column is noticed (the comparison is not vacuous)', async () => {
  await db.pool.query('alter table worker_heartbeats rename column seen_at to last_seen_at');
  try {
    const live = await liveColumns();
    assert.notDeepEqual(Object.entries(COLUMNS.worker_heartbeats), Object.entries(live.worker_heartbeats));
  } finally {
    await db.pool.query('alter table worker_heartbeats rename column last_seen_at to seen_at');
  }
});
