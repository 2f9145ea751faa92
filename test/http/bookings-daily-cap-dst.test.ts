import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { NOW, create, introBody, seedBooking } from './bookings-helpers.ts';

// America/Santiago skips midnight on 5 Sep 2027: that day runs from 01:00 (04:00Z) to the next
// midnight (03:00Z on the 6th), 23 hours. A day computed as "start of day plus one day" ran
// to 04:00Z instead and counted the first hour of the 6th against the 5th's cap.
let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
  const allDay = [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'], start: '00:00', end: '24:00' }];
  await t.db.pool.query(`update members set timezone = 'America/Santiago', max_bookings_per_day = 1, working_hours = $2 where id = $1`, [
    MEMBERS.jonas,
    JSON.stringify(allDay),
  ]);
  // 00:30 local on the 6th
  await seedBooking(t, { status: 'SCHEDULED', start: '2027-09-06T03:30:00Z', member: MEMBERS.jonas });
});
after(async () => {
  await t?.close();
});

async function jonasOn(date: string) {
  const res = await t.request('GET', `/v1/team/members/available?date=${date}&duration=30&team_id=team_advisors`, { key: KEYS.secret });
  assert.equal(res.status, 200, res.text);
  return res.body.members.find((m: { id: string }) => m.id === MEMBERS.jonas).availability;
}

describe('daily cap on a day whose midnight DST skips (America/Santiago, 5 Sep 2027)', () => {
  it('booked_slots counts the 00:30 booking on the 6th, not on the 5th', async () => {
    assert.deepEqual(
      { booked: (await jonasOn('2027-09-05')).booked_slots, open: (await jonasOn('2027-09-05')).is_available },
      { booked: 0, open: true },
    );
    const sixth = await jonasOn('2027-09-06');
    assert.equal(sixth.booked_slots, 1);
    assert.equal(sixth.is_available, false, 'cap 1 reached');
  });

  it("a booking on the 5th is taken (the 6th's booking does not count), one on the 6th is refused", async () => {
    const fifth = await create(t, introBody('2027-09-05T12:00:00Z', { assign_to: MEMBERS.jonas }));
    assert.equal(fifth.status, 201, fifth.text);
    const sixth = await create(t, introBody('2027-09-06T12:00:00Z', { assign_to: MEMBERS.jonas }));
    assert.equal(sixth.status, 409, sixth.text);
  });
});
