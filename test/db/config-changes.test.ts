import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pino from 'pino';
import { announceBusyChange, listenForBusyChanges } from '../../src/db/busy-changes.ts';
import { announceConfigChange, listenForConfigChanges } from '../../src/db/config-changes.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase({ migrate: false });
});
after(() => db.drop());

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('delivers announcements, and listens again after its connection is killed (caches cleared then too)', async () => {
  let changes = 0;
  const listener = listenForConfigChanges(db.url, () => changes++, pino({ level: 'silent' }));
  try {
    await until(() => changes === 1, 5000, 'the first LISTEN clears the caches once');
    await announceConfigChange(db.pool);
    await until(() => changes === 2, 5000, 'an announcement');
    // an announcement rolled back is never delivered
    const c = await db.pool.connect();
    await c.query('begin');
    await announceConfigChange(c);
    await c.query('rollback');
    c.release();

    const killed = await db.pool.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen %'`,
    );
    assert.equal(killed.rowCount, 1);
    // announcements while it is away are missed, so listening again clears the caches as well
    await until(() => changes === 3, 5000, 'listening again after the connection was lost');
    await announceConfigChange(db.pool);
    await until(() => changes === 4, 5000, 'an announcement on the new connection');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(changes, 4, 'nothing else arrived (the rolled-back one included)');
  } finally {
    await listener.close();
  }
});

it('announces any number of members changed at once, in payloads NOTIFY takes', async () => {
  const heard = new Set<string>();
  let listening!: () => void;
  const ready = new Promise<void>((r) => (listening = r));
  const listener = listenForBusyChanges(
    db.url,
    (change) => change.memberIds.forEach((id) => heard.add(id)),
    pino({ level: 'silent' }),
    () => listening(),
  );
  try {
    await ready;
    // 450 ids of 36 characters are 16,649 bytes with their commas: over NOTIFY's 8,000 in one payload
    const ids = Array.from({ length: 450 }, (_, i) => `3b9a4c1e-7d2f-4e8a-9c51-${String(i).padStart(12, '0')}`);
    await announceBusyChange(db.pool, ids);
    await until(() => heard.size === ids.length, 5000, 'every id heard');
  } finally {
    await listener.close();
  }
});
