import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { ADVISORS, NOW, activeHolds, create, introBody, seedBooking } from './bookings-helpers.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
});
after(async () => {
  await t.close();
});

const statuses = (rs: { status: number }[]) =>
  rs.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

async function holdsAt(start: string) {
  const r = await t.db.pool.query(
    `select bm.member_id from booking_members bm where bm.start_time = $1 and bm.active and bm.mode = 'test' order by bm.member_id`,
    [start],
  );
  return r.rows.map((x) => x.member_id as string);
}

describe('capacity under concurrency', () => {
  it('200 concurrent creates on one slot that 2 hosts can take: exactly 2 get 201, 198 get 409', async () => {
    const slot = '2026-12-02T10:00:00Z';
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => create(t, introBody(slot, { attendee: { name: `R${i}`, email: `r${i}@example.com` } }))),
    );
    assert.deepEqual(statuses(results), { 201: 2, 409: 198 });
    assert.ok(results.filter((r) => r.status === 409).every((r) => r.body.error.code === 'conflict'));
    // checked in the database afterwards: two bookings, one per host, each holding its member
    const rows = await t.db.pool.query(`select id from bookings where start_time = $1`, [slot]);
    assert.equal(rows.rowCount, 2);
    assert.deepEqual(await holdsAt(slot), ADVISORS);
  });

  it('COLLECTIVE: 50 concurrent creates, exactly 1 wins and holds both hosts', async () => {
    const slot = '2026-12-03T11:00:00Z';
    const body = { event_type_id: 'et_planning_session', requested_time: slot, attendee: { name: 'C', email: 'c@example.com' } };
    const results = await Promise.all(Array.from({ length: 50 }, () => create(t, body)));
    assert.deepEqual(statuses(results), { 201: 1, 409: 49 });
    assert.deepEqual(await holdsAt(slot), ADVISORS);
  });

  it('the per-day cap holds under concurrency: 40 creates for Jonas over 8 slots of one day, exactly 4 win', async () => {
    const slots = ['07', '08', '09', '10', '11', '12', '13', '14'].map((h) => `2026-12-08T${h}:00:00Z`);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => create(t, introBody(slots[i % 8], { assign_to: MEMBERS.jonas }))),
    );
    assert.deepEqual(statuses(results), { 201: 4, 409: 36 });
    const n = await t.db.pool.query(
      `select count(*)::int as n from booking_members where member_id = $1 and active and start_time >= '2026-12-08' and start_time < '2026-12-09'`,
      [MEMBERS.jonas],
    );
    assert.equal(n.rows[0].n, 4);
  });
});

describe('reschedule races', () => {
  it('concurrent reschedules of 10 bookings onto one slot: exactly 2 move, the rest stay untouched', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const day = ['14', '15', '16', '17', '21'][i % 5];
      ids.push(
        await seedBooking(t, {
          status: 'SCHEDULED',
          start: `2026-12-${day}T${i < 5 ? '09' : '11'}:00:00Z`,
          member: i % 2 ? MEMBERS.jonas : MEMBERS.amara,
        }),
      );
    }
    const target = '2026-12-10T12:00:00Z';
    const results = await Promise.all(
      ids.map((id) => t.request('POST', `/v1/bookings/${id}/reschedule`, { key: KEYS.secret, body: { start_time: target } })),
    );
    assert.deepEqual(statuses(results), { 200: 2, 409: 8 });
    assert.deepEqual(await holdsAt(target), ADVISORS);
    for (const [i, r] of results.entries()) {
      const old = (await t.request('GET', `/v1/bookings/${ids[i]}`, { key: KEYS.secret })).body.booking;
      if (r.status === 200) assert.equal(old.status, 'CANCELLED');
      else {
        assert.equal(old.status, 'SCHEDULED');
        assert.equal((await activeHolds(t, ids[i])).length, 1, 'a loser keeps its original hold');
      }
    }
  });

  it('concurrent cancel and reschedule of one booking: exactly one wins, and the state is whole', async () => {
    for (let i = 0; i < 10; i++) {
      const id = await seedBooking(t, { status: 'SCHEDULED', start: `2027-01-${String(4 + i).padStart(2, '0')}T06:00:00Z` });
      const target = `2026-12-${['02', '03', '07', '09', '14', '15', '16', '21', '22', '23'][i]}T15:00:00Z`;
      const [cancel, move] = await Promise.all([
        t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret, body: { reason: 'race' } }),
        t.request('POST', `/v1/bookings/${id}/reschedule`, { key: KEYS.secret, body: { start_time: target } }),
      ]);
      assert.deepEqual([cancel.status, move.status].sort(), [200, 409], `${cancel.text} / ${move.text}`);
      const old = (await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.secret })).body.booking;
      assert.equal(old.status, 'CANCELLED');
      assert.deepEqual(await activeHolds(t, id), []);
      if (move.status === 200) {
        assert.equal(old.rescheduled_to, move.body.booking.id);
        assert.equal((await activeHolds(t, move.body.booking.id)).length, 1);
      } else {
        assert.equal(old.rescheduled_to, null);
        assert.equal(old.cancellation_reason, 'race');
        const fresh = await t.db.pool.query(`select count(*)::int as n from bookings where rescheduled_from = $1`, [id]);
        assert.equal(fresh.rows[0].n, 0);
      }
    }
  });
});

describe('a change racing the deletion of its event type', () => {
  /**
   * Runs `request` while another transaction holds the type's row as DELETE /event-types and a
   * disabling PATCH do (FOR UPDATE); once the request waits on that lock, the type is disabled
   * and the transaction commits. Restores the type after.
   */
  async function whileTypeIsDisabled<T>(request: () => Promise<T>): Promise<T> {
    const other = await t.db.pool.connect();
    try {
      await other.query('begin');
      await other.query(`select 1 from event_types where id = 'et_intro_call' for update`);
      const pending = request();
      for (let i = 0; ; i++) {
        const waiting = await t.db.pool.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (waiting.rows[0].n > 0) break;
        assert.ok(i < 500, 'the request never waited on the event type');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await other.query(`update event_types set is_active = false where id = 'et_intro_call'`);
      await other.query('commit');
      return await pending;
    } finally {
      await other.query('rollback').catch(() => {});
      other.release();
      await t.db.pool.query(`update event_types set is_active = true where id = 'et_intro_call'`);
    }
  }

  it('a create waiting on it is refused once the type is disabled, and writes nothing', async () => {
    const slot = '2026-12-10T10:00:00Z';
    const res = await whileTypeIsDisabled(() => create(t, introBody(slot)));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.field, 'event_type_id');
    const rows = await t.db.pool.query('select count(*)::int as n from bookings where start_time = $1', [slot]);
    assert.equal(rows.rows[0].n, 0);
  });

  it('a reschedule waiting on it is refused once the type is disabled, and the booking stays as it was', async () => {
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-10T11:00:00Z' });
    const res = await whileTypeIsDisabled(() =>
      t.request('POST', `/v1/bookings/${id}/reschedule`, { key: KEYS.secret, body: { start_time: '2026-12-10T14:00:00Z' } }),
    );
    assert.equal(res.status, 409, res.text);
    const after = (await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.secret })).body.booking;
    assert.equal(after.status, 'SCHEDULED');
    assert.equal(after.rescheduled_to, null);
    assert.equal((await activeHolds(t, id)).length, 1);
  });
});
