import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { transaction } from '../../src/db/pool.ts';
import { applyStatus, updateAttendee } from '../../src/db/queries/bookings.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { testSeed } from '../helpers/fixtures.ts';
import { insertBooking } from '../domain/email/booking-rows.ts';

// A booking's updated_at orders its changes as they happened: a change whose transaction began
// before another's, and wrote after it (it waited for the row's lock), must not go back in time,
// or a webhook receiver keeping "the newest state by updated_at" keeps the wrong one.
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(() => db.drop());

const attendee = (name: string) => ({ name, email: 'seed@example.com' });

it('a change written after another is later, though its transaction began first', async () => {
  const id = await insertBooking(db.pool, { start: '2027-04-05T10:00:00Z', status: 'SCHEDULED' });
  let other: Date | undefined;
  const late = await transaction(db.pool, async (tx) => {
    await tx.query('select 1'); // the transaction has begun: now() is fixed from here
    await new Promise((r) => setTimeout(r, 30));
    other = (await transaction(db.pool, (t2) => updateAttendee(t2, id, attendee('first written')))).updated_at;
    return updateAttendee(tx, id, attendee('written last'));
  });
  assert.ok(late.updated_at > other!, `${late.updated_at.toISOString()} after ${other!.toISOString()}`);
});

it('changes in the same millisecond still come out a millisecond apart, at the precision the API shows', async () => {
  const id = await insertBooking(db.pool, { start: '2027-04-06T10:00:00Z', status: 'SCHEDULED' });
  const shown = await transaction(db.pool, async (tx) => {
    const times: string[] = [];
    for (let i = 0; i < 5; i++) times.push((await updateAttendee(tx, id, attendee(`n${i}`))).updated_at.toISOString());
    times.push((await applyStatus(tx, id, { status: 'COMPLETED' })).updated_at.toISOString());
    return times;
  });
  assert.deepEqual([...new Set(shown)], shown, 'no two alike');
  assert.deepEqual([...shown].sort(), shown, 'ascending');
});
