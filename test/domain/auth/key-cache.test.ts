import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../../src/db/pool.ts';
import { authenticate, clearKeyCache, isOriginAllowed } from '../../../src/domain/auth/keys.ts';

const KEY = 'sk_test_cache_generation_key_0000000001';
const ROW = { id: 'key_1', organization_id: 'org_1', kind: 'secret', mode: 'test', scopes: ['bookings:read'], allowed_origins: null };

/** A database that reads `row` when asked, and answers when `release` is called. */
function slowDb() {
  const db = { lookups: 0, row: ROW as typeof ROW | undefined, release: () => {} };
  const query = async () => {
    db.lookups++;
    const read = db.row;
    await new Promise<void>((r) => (db.release = r));
    return { rows: read ? [read] : [] };
  };
  return { state: db, db: { query } as unknown as Db };
}

describe('key cache', () => {
  it('a lookup that was under way when the cache was cleared answers its request but is not cached', async () => {
    clearKeyCache();
    const { state, db } = slowDb();
    const first = authenticate(db, KEY);
    await new Promise((r) => setImmediate(r));
    clearKeyCache(); // seed revoked the key while the old row was being read
    state.row = undefined;
    state.release();
    assert.equal((await first)?.keyId, 'key_1', 'the request in flight used what it read');
    const second = authenticate(db, KEY);
    await new Promise((r) => setImmediate(r));
    assert.equal(state.lookups, 2, 'read again, not taken from the cache');
    state.release();
    assert.equal(await second, null);
    // an undisturbed lookup is cached
    assert.equal(await authenticate(db, KEY), null);
    assert.equal(state.lookups, 2);
    clearKeyCache();
  });

  it('the same for origin answers: one read before a clear is not cached', async () => {
    clearKeyCache();
    let allowed = false;
    let reads = 0;
    let release = () => {};
    const db = {
      query: async () => {
        reads++;
        const read = allowed;
        await new Promise<void>((r) => (release = r));
        return { rows: read ? [{ one: 1 }] : [] };
      },
    } as unknown as Db;
    const first = isOriginAllowed(db, 'https://shop.example');
    await new Promise((r) => setImmediate(r));
    clearKeyCache(); // keys create just listed the origin
    allowed = true;
    release();
    assert.equal(await first, false);
    const second = isOriginAllowed(db, 'https://shop.example');
    await new Promise((r) => setImmediate(r));
    assert.equal(reads, 2, 'read again, not taken from the cache');
    release();
    assert.equal(await second, true);
    clearKeyCache();
  });
});
