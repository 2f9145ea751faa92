import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { busyOfMembers } from '../../src/db/queries/busy.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS, testSeed } from '../helpers/fixtures.ts';
import { insertBooking } from '../domain/availability/scheduling-fixtures.ts';

// busyOfMembers reads the holds whose buffered interval overlaps the window [from, to), in one of
// two ways (busy.ts): from member_busy_days, which the holds' trigger keeps, or, when the read
// leaves a booking out (a reschedule's), the holds themselves. One hold of 10:00-10:30 with a
// 10-minute buffer after, [10:00, 10:40), and windows on each of its edges, each asked both ways.
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
  await insertBooking(db.pool, {
    id: 'bkg_edge',
    eventTypeId: 'et_intro_call',
    memberIds: [MEMBERS.jonas],
    start: '2027-06-07T10:00:00Z',
    minutes: 30,
    bufferAfter: 10,
  });
});
after(() => db.drop());

const DAY = 86_400_000;

/**
 * The member's holds' start times that busyOfMembers finds in [from, to), asked both ways: from
 * member_busy_days, for the window as given and widened by 10 days on the side away from the
 * hold that starts at `holdStart` (which keeps the answer), and from the holds, leaving out a
 * booking that does not exist; all three must agree.
 */
async function startsIn(member: string, holdStart: string, from: string, to: string, mode = 'test'): Promise<string | null> {
  const read = async (a: number, b: number, leaveOut: string | null = null) => {
    const row = (await busyOfMembers(db.pool, [member], mode, new Date(a), new Date(b), leaveOut)).find((r) => r.kind === 'booking');
    return row ? Array.from(row.booking_starts).join(',') : null;
  };
  const [a, b] = [Date.parse(from), Date.parse(to)];
  const days = await read(a, b);
  const holds = await read(a, b, 'bkg_none');
  assert.equal(holds, days, `the holds and member_busy_days disagree about [${from}, ${to})`);
  const wide = a >= Date.parse(holdStart) ? await read(a, b + 10 * DAY) : await read(a - 10 * DAY, b);
  assert.equal(wide, days, `a window and a wider one disagree about [${from}, ${to})`);
  return days;
}

const busyIn = (from: string, to: string, mode = 'test') => startsIn(MEMBERS.jonas, '2027-06-07T10:00:00Z', from, to, mode);

it('finds a hold overlapping the window, however little', async () => {
  const start = String(Date.parse('2027-06-07T10:00:00Z'));
  assert.equal(await busyIn('2027-06-07T10:39:00Z', '2027-06-07T11:00:00Z'), start); // its buffer's last minute
  assert.equal(await busyIn('2027-06-07T09:00:00Z', '2027-06-07T10:01:00Z'), start); // its first minute
  assert.equal(await busyIn('2027-06-07T10:10:00Z', '2027-06-07T10:20:00Z'), start); // inside it
  assert.equal(await busyIn('2027-06-07T00:00:00Z', '2027-06-08T00:00:00Z'), start); // around it
});

it('does not find a hold that only touches the window', async () => {
  assert.equal(await busyIn('2027-06-07T10:40:00Z', '2027-06-07T11:00:00Z'), null); // the window starts where the buffer ends
  assert.equal(await busyIn('2027-06-07T09:00:00Z', '2027-06-07T10:00:00Z'), null); // the window ends where the hold starts
});

it('does not find a hold of the other mode, or one no longer active', async () => {
  assert.equal(await busyIn('2027-06-07T10:00:00Z', '2027-06-07T11:00:00Z', 'live'), null);
  await db.pool.query(`update booking_members set active = false where booking_id = 'bkg_edge'`);
  assert.equal(await busyIn('2027-06-07T10:00:00Z', '2027-06-07T11:00:00Z'), null);
  await db.pool.query(`update booking_members set active = true where booking_id = 'bkg_edge'`);
});

it('finds the longest hold the limits allow from windows at its far edges', async () => {
  // A 24 h meeting with 24 h buffers either side: [start - 24 h, start + 48 h), the farthest a hold
  // reaches from its start (constraint booking_members_during_near_start); busyOfMembers bounds
  // its index scan by exactly that reach.
  await insertBooking(db.pool, {
    eventTypeId: 'et_intro_call',
    memberIds: [MEMBERS.priya],
    start: '2027-07-10T12:00:00Z',
    minutes: 1440,
    bufferBefore: 1440,
    bufferAfter: 1440,
  });
  const start = String(Date.parse('2027-07-10T12:00:00Z'));
  const busy = (from: string, to: string) => startsIn(MEMBERS.priya, '2027-07-10T12:00:00Z', from, to);
  assert.equal(await busy('2027-07-09T11:00:00Z', '2027-07-09T12:00:01Z'), start); // its first second, 24 h before its start
  assert.equal(await busy('2027-07-12T11:59:59Z', '2027-07-12T13:00:00Z'), start); // its last second, 48 h after its start
  assert.equal(await busy('2027-07-12T12:00:00Z', '2027-07-12T13:00:00Z'), null);
  assert.equal(await busy('2027-07-09T11:00:00Z', '2027-07-09T12:00:00Z'), null);
});
