import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Tx } from '../../src/db/pool.ts';
import { one, transaction } from '../../src/db/pool.ts';
import { applyStatus, assignRouted } from '../../src/db/queries/bookings.ts';
import { emailsOfBooking, recordAttempts } from '../../src/db/queries/email-outbox.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS, testSeed } from '../helpers/fixtures.ts';
import { enqueue, insertBooking } from '../domain/email/booking-rows.ts';

// A booking's status changes write no column of any index on bookings, nor an email's attempts
// one of email_outbox, so PostgreSQL can make them HOT updates (no new index entry; migrations
// 078 and 079). An index that comes to cover a column these updates write makes this fail:
// status, assigned_to_id, host_ids, the cancellation fields, version and updated_at of a
// booking; status, attempts, last_error and sent_at of an email. The tables are new and their
// pages have room, so every update here can be HOT unless an index forbids it.
let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(() => db.drop());

/** This transaction's updates of a table so far, and how many of them were HOT (pg_stat_xact_user_tables). */
async function updates(tx: Tx, table = 'bookings'): Promise<{ upd: number; hot: number }> {
  const row = await one<{ upd: string; hot: string }>(
    tx,
    `select n_tup_upd as upd, n_tup_hot_upd as hot from pg_stat_xact_user_tables where relname = $1`,
    [table],
  );
  return { upd: Number(row!.upd), hot: Number(row!.hot) };
}

it('routing and the later status changes of a booking add no index entry', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(await insertBooking(db.pool, { start: `2027-03-0${i + 1}T10:00:00Z`, status: 'DRAFT' }));
  await transaction(db.pool, async (tx) => {
    const before = await updates(tx);
    await assignRouted(
      tx,
      ids.map((id) => ({ id, status: 'SCHEDULED' as const, hostIds: [MEMBERS.amara] })),
    );
    await applyStatus(tx, ids[0]!, { status: 'CANCELLED', cancellationReason: 'no longer needed', cancelledAt: new Date() });
    await applyStatus(tx, ids[1]!, { status: 'NO_SHOW' });
    await applyStatus(tx, ids[2]!, { status: 'COMPLETED', assignedToId: null, hostIds: [] });
    const after = await updates(tx);
    assert.equal(after.upd - before.upd, 6);
    assert.equal(after.hot - before.hot, 6, 'every status change is a HOT update');
  });
});

it('recording an email attempt adds no index entry', async () => {
  const bookingId = await insertBooking(db.pool, { start: '2027-03-10T10:00:00Z', assignedToId: MEMBERS.amara });
  await enqueue(db.pool, bookingId, 'scheduled');
  const emails = await emailsOfBooking(db.pool, bookingId);
  assert.ok(emails.length >= 2, 'the attendee and the host each have an email');
  await transaction(db.pool, async (tx) => {
    const before = await updates(tx, 'email_outbox');
    const at = new Date();
    await recordAttempts(tx, [
      { id: emails[0]!.id, status: 'pending', at, error: 'connection refused' },
      { id: emails[1]!.id, status: 'sent', at, error: null },
    ]);
    await recordAttempts(tx, [{ id: emails[0]!.id, status: 'failed', at, error: 'connection refused' }]);
    const after = await updates(tx, 'email_outbox');
    assert.equal(after.upd - before.upd, 3);
    assert.equal(after.hot - before.hot, 3, 'every attempt is a HOT update');
  });
});
