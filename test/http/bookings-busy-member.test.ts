import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PoolClient } from 'pg';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { NOW, activeHolds, create, introBody, seedBooking, slots } from './bookings-helpers.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
});
after(async () => {
  await t.close();
});

/** Another transaction holding members' row locks, as a concurrent create of theirs does. */
async function lockMembers(ids: string[]): Promise<PoolClient> {
  const c = await t.db.pool.connect();
  await c.query('begin');
  await c.query('select id from members where id = any($1::uuid[]) for no key update', [ids]);
  return c;
}

async function unlock(c: PoolClient): Promise<void> {
  await c.query('rollback');
  c.release();
}

// et_intro_call is ROUND_ROBIN over Amara and Jonas.
describe('ROUND_ROBIN create while a member is being booked', () => {
  it('skips a member another transaction holds and takes the next one, without waiting', async () => {
    for (const [busy, free, slot] of [
      [MEMBERS.amara, MEMBERS.jonas, '2026-12-02T10:00:00Z'],
      [MEMBERS.jonas, MEMBERS.amara, '2026-12-03T10:00:00Z'],
    ]) {
      const c = await lockMembers([busy]);
      try {
        const r = await create(t, introBody(slot));
        assert.equal(r.status, 201, r.text);
        assert.deepEqual(await activeHolds(t, r.body.booking.id), [free]);
      } finally {
        await unlock(c);
      }
    }
  });

  it('waits when every candidate is busy, and is not refused once one frees up', async () => {
    const c = await lockMembers([MEMBERS.amara, MEMBERS.jonas]);
    let settled = false;
    const pending = create(t, introBody('2026-12-04T10:00:00Z')).finally(() => {
      settled = true;
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(settled, false, 'the create waits for a member lock instead of answering 409');
    } finally {
      await unlock(c);
    }
    const r = await pending;
    assert.equal(r.status, 201, r.text);
    assert.equal((await activeHolds(t, r.body.booking.id)).length, 1);
  });
});

/**
 * The per-day cap counts the member's local day, computed by the service from the zone it
 * read; hold_members refuses a zone that changed meanwhile (40001) and the request reads its
 * slot again. Jonas moves from Europe/Berlin to Europe/Paris (the same hours in December)
 * while a request waits for his lock.
 */
describe("a member's time zone changes while a request waits for the member", () => {
  async function whileZoneChanges(
    zone: string,
    request: () => Promise<{ status: number; text: string; body: { booking: { id: string } } }>,
  ) {
    const c = await lockMembers([MEMBERS.jonas]);
    let pending: ReturnType<typeof request>;
    try {
      await c.query('update members set timezone = $2 where id = $1', [MEMBERS.jonas, zone]);
      pending = request();
      await new Promise((r) => setTimeout(r, 300));
      await c.query('commit');
    } finally {
      c.release();
    }
    return pending;
  }

  it('create: retried with the new zone, 201 on the member', async () => {
    const r = await whileZoneChanges('Europe/Paris', () => create(t, introBody('2026-12-07T10:00:00Z', { assign_to: MEMBERS.jonas })));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(await activeHolds(t, r.body.booking.id), [MEMBERS.jonas]);
  });

  it('reschedule: retried with the new zone, 200 keeping the member', async () => {
    const old = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-08T10:00:00Z', member: MEMBERS.jonas });
    const r = await whileZoneChanges('Europe/Berlin', () =>
      t.request('POST', `/v1/bookings/${old}/reschedule`, { key: KEYS.secret, body: { start_time: '2026-12-08T11:00:00Z' } }),
    );
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await activeHolds(t, r.body.booking.id), [MEMBERS.jonas]);
  });
});

/**
 * COLLECTIVE takes every host or none: a create that listed the slot while another transaction
 * was booking one of the hosts waits for that host, then finds the host taken and answers 409,
 * leaving nothing behind.
 */
describe('COLLECTIVE create while one of its hosts is being booked', () => {
  it('waits for the host, then refuses with 409 once the other booking commits; nothing is written', async () => {
    const [slot] = await slots(t, 'et_planning_session', '2026-12-09T00:00:00Z', '2026-12-10T00:00:00Z');
    assert.ok(slot, 'a collective slot that day');
    const c = await lockMembers([MEMBERS.jonas]);
    let pending: ReturnType<typeof create> | undefined;
    let settled = false;
    let committed = false;
    try {
      await seedBooking(t, { status: 'SCHEDULED', start: slot.start, member: MEMBERS.jonas, db: c });
      pending = create(t, {
        event_type_id: 'et_planning_session',
        requested_time: slot.start,
        attendee: { name: 'Race', email: 'race@example.com' },
      });
      void pending.finally(() => {
        settled = true;
      });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(settled, false, 'the create waits for the host');
      await c.query('commit');
      committed = true;
    } finally {
      // never hand back a client with its transaction (and the member's lock) still open
      if (!committed) await c.query('rollback').catch(() => {});
      c.release();
      if (!committed) await pending?.catch(() => {});
    }
    const r = await pending!;
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.error.type, 'conflict_error');
    assert.equal(r.body.error.code, 'conflict');
    assert.match(r.body.error.message, /a host was just booked/);
    const written = await t.db.pool.query(
      `select count(*)::int as n from bookings where event_type_id = 'et_planning_session' and start_time = $1`,
      [slot.start],
    );
    assert.equal(written.rows[0].n, 0, 'no booking of the collective type at that time');
  });
});
