import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PoolClient } from 'pg';
import pino from 'pino';
import { busyOfMembers } from '../../src/db/queries/busy.ts';
import { MemoryFreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import { transaction } from '../../src/db/pool.ts';
import { routeBooking, routeBookings } from '../../src/domain/bookings/route.ts';
import { enqueueBookingEmails } from '../../src/domain/email/enqueue.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import {
  NOW,
  activeHolds,
  create,
  created,
  eventStamps,
  eventsOf,
  introBody,
  seedBooking,
  waitForStatusChange,
} from '../http/bookings-helpers.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW, worker: true });
});
after(async () => {
  await t.close();
});

/** Another transaction holding a lock on the booking row (FOR UPDATE, or FOR KEY SHARE as a foreign-key check takes). */
async function lockBooking(id: string, strength: 'update' | 'key share'): Promise<PoolClient> {
  const c = await t.db.pool.connect();
  await c.query('begin');
  await c.query(`select 1 from bookings where id = $1 for ${strength}`, [id]);
  return c;
}

async function release(c: PoolClient): Promise<void> {
  await c.query('rollback').catch(() => {});
  c.release();
}

const deps = () => ({ db: t.db.pool, now: () => NOW, log: pino({ level: 'silent' }), freebusyCache: new MemoryFreeBusyCache() });

describe('route-booking job (worker running)', () => {
  it('DRAFT → SCHEDULED with the held member assigned and ASSIGNMENT_CHANGED recorded', async () => {
    const b = await created(t, introBody('2026-12-02T10:00:00Z'));
    const held = await activeHolds(t, b.id);
    const routed = await waitForStatusChange(t, b.id, 'DRAFT');
    assert.equal(routed.status, 'SCHEDULED');
    assert.equal(routed.assigned_to_id, held[0]);
    assert.deepEqual(routed.host_ids, held);
    const events = await eventsOf(t, b.id);
    assert.deepEqual(events.map((e) => e.type).sort(), ['ASSIGNMENT_CHANGED', 'BOOKING_CREATED']);
    const change = events.find((e) => e.type === 'ASSIGNMENT_CHANGED')!;
    assert.equal(change.data.assigned_to_id, held[0]);
    assert.equal(change.data.status, 'SCHEDULED');
    // each event is stamped with the booking's updated_at at its change: routing's with the routed row's
    const stamps = await eventStamps(t, b.id);
    for (const e of stamps) assert.equal(e.at, e.updatedAt, e.type);
    assert.equal(stamps.find((e) => e.type === 'ASSIGNMENT_CHANGED')!.at, routed.updated_at);
  });

  it('COLLECTIVE with requires_confirmation → PENDING_CONFIRMATION, every host assigned, the first as assigned_to_id', async () => {
    const b = await created(t, {
      event_type_id: 'et_planning_session',
      requested_time: '2026-12-03T10:00:00Z',
      attendee: { name: 'C', email: 'c@example.com' },
    });
    const routed = await waitForStatusChange(t, b.id, 'DRAFT');
    assert.equal(routed.status, 'PENDING_CONFIRMATION');
    assert.equal(routed.assigned_to_id, MEMBERS.amara);
    assert.deepEqual(routed.host_ids, [MEMBERS.amara, MEMBERS.jonas]);
    const list = await t.request('GET', `/v1/bookings?assigned_to_id=${MEMBERS.jonas}&event_type_id=et_planning_session`, {
      key: KEYS.secret,
    });
    assert.ok(
      list.body.bookings.some((x: { id: string }) => x.id === b.id),
      'the assigned_to_id filter matches every host',
    );
  });

  it('assign_to bypasses routing: the named member is assigned', async () => {
    const b = await created(t, introBody('2026-12-02T12:00:00Z', { assign_to: MEMBERS.jonas }));
    assert.equal((await waitForStatusChange(t, b.id, 'DRAFT')).assigned_to_id, MEMBERS.jonas);
  });

  it('ROUND_ROBIN alternates: fewest bookings in the month, ties to the least recently booked', async () => {
    const assigned: string[] = [];
    for (const time of ['2027-01-06T09:00:00Z', '2027-01-06T10:00:00Z', '2027-01-06T11:00:00Z', '2027-01-06T12:00:00Z']) {
      const b = await created(t, introBody(time));
      assigned.push((await waitForStatusChange(t, b.id, 'DRAFT')).assigned_to_id);
    }
    assert.deepEqual(assigned, [MEMBERS.amara, MEMBERS.jonas, MEMBERS.amara, MEMBERS.jonas]);
  });

  it('ROUND_ROBIN ties go to the host booked least recently in any month, not to the host order', async () => {
    // Jonas booked in August, then Amara in September: both have none in October or November
    for (const [time, host] of [
      ['2027-08-04T09:00:00Z', MEMBERS.jonas],
      ['2027-09-01T09:00:00Z', MEMBERS.amara],
    ]) {
      const b = await created(t, introBody(time, { assign_to: host }));
      assert.equal((await waitForStatusChange(t, b.id, 'DRAFT')).assigned_to_id, host);
    }
    const assigned: string[] = [];
    for (const time of ['2027-10-06T09:00:00Z', '2027-11-03T09:00:00Z']) {
      const b = await created(t, introBody(time));
      assigned.push((await waitForStatusChange(t, b.id, 'DRAFT')).assigned_to_id);
    }
    // October: Jonas, whose last booking (August) is older; November: Amara, now the older one
    assert.deepEqual(assigned, [MEMBERS.jonas, MEMBERS.amara]);
  });

  it('the round-robin figures the database keeps equal a recount after creates, cancels, reschedules and closes', async () => {
    const ids: string[] = [];
    for (const time of ['2027-03-02T09:00:00Z', '2027-03-02T10:00:00Z', '2027-03-02T11:00:00Z', '2027-03-30T12:00:00Z']) {
      const b = await created(t, introBody(time));
      ids.push(b.id);
      await waitForStatusChange(t, b.id, 'DRAFT');
    }
    assert.equal((await t.request('DELETE', `/v1/bookings/${ids[0]}`, { key: KEYS.secret })).status, 200);
    assert.equal((await t.request('POST', `/v1/bookings/${ids[1]}/complete`, { key: KEYS.secret })).status, 200);
    // into the next month: the old month loses it, the new one gains it
    const moved = await t.request('POST', `/v1/bookings/${ids[3]}/reschedule`, {
      key: KEYS.secret,
      body: { start_time: '2027-04-06T09:00:00Z' },
    });
    assert.equal(moved.status, 200, moved.text);
    await seedBooking(t, { status: 'CANCELLED', start: '2027-03-03T09:00:00Z', member: MEMBERS.amara });
    await seedBooking(t, { status: 'COMPLETED', start: '2027-03-03T10:00:00Z', member: MEMBERS.jonas });

    const kept = await t.db.pool.query(`select member_id, mode, period_start, booked from member_booking_counts order by 1, 2, 3`);
    const recount = await t.db.pool.query(
      `select bm.member_id, bm.mode, date_trunc('month', bm.start_time, 'UTC') as period_start,
              count(*) filter (where bm.active or b.status <> 'CANCELLED')::int as booked
         from booking_members bm join bookings b on b.id = bm.booking_id group by 1, 2, 3 order by 1, 2, 3`,
    );
    assert.deepEqual(kept.rows, recount.rows);
    // and when each member was last given a hold, over all months, in one row per member and mode
    const last = await t.db.pool.query(`select member_id, mode, last_booked_at from member_last_booked order by 1, 2`);
    const latest = await t.db.pool.query(
      `select member_id, mode, max(created_at) as last_booked_at from booking_members group by 1, 2 order by 1, 2`,
    );
    assert.deepEqual(last.rows, latest.rows);
    assert.ok(last.rows.length >= 2);
    // and each member's active holds by day, as availability reads them over a range (migration 082)
    const days = await t.db.pool.query(`select member_id, mode, day::text, length(holds) as bytes from member_busy_days order by 1, 2, 3`);
    const activeByDay = await t.db.pool.query(
      `select member_id, mode, (start_time at time zone 'UTC')::date::text as day, 16 * count(*)::int as bytes
         from booking_members where active group by 1, 2, 3 order by 1, 2, 3`,
    );
    assert.deepEqual(days.rows, activeByDay.rows);
    assert.ok(days.rows.length >= 2);
    const march = kept.rows.filter((r) => r.period_start.toISOString() === '2027-03-01T00:00:00.000Z');
    assert.equal(
      march.reduce((n, r) => n + r.booked, 0),
      3,
      'March: the completed and two others; not the cancelled nor the moved',
    );

    // round-robin's period is the UTC calendar month of the start
    const booked = async (start: string) => {
      const at = new Date(start);
      const rows = await busyOfMembers(t.db.pool, [MEMBERS.amara, MEMBERS.jonas], 'test', at, at, null, at);
      return rows.filter((r) => r.kind === 'stats').reduce((n, s) => n + s.booked!, 0);
    };
    assert.equal(await booked('2027-03-31T23:30:00Z'), 3);
    assert.equal(await booked('2027-04-01T00:30:00Z'), 1);
  });

  it('a booking cancelled while DRAFT is never routed; routing twice changes nothing', async () => {
    const b = await created(t, introBody('2026-12-02T14:00:00Z'));
    const cancel = await t.request('DELETE', `/v1/bookings/${b.id}`, { key: KEYS.secret });
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal(await routeBooking(deps(), b.id), 'skipped');
    assert.equal((await t.request('GET', `/v1/bookings/${b.id}`, { key: KEYS.secret })).body.booking.status, 'CANCELLED');
    assert.deepEqual(await activeHolds(t, b.id), []);
  });

  it('routing is idempotent when run directly on a DRAFT', async () => {
    const id = await seedBooking(t, { status: 'DRAFT', start: '2027-02-01T10:00:00Z', member: MEMBERS.jonas });
    const outcomes = await Promise.all([routeBooking(deps(), id), routeBooking(deps(), id)]);
    // the second either waits for nothing (busy: the first holds the booking) or sees it routed
    assert.equal(outcomes.filter((o) => o === 'routed').length, 1);
    assert.ok(
      outcomes.every((o) => o === 'routed' || o === 'skipped' || o === 'busy'),
      outcomes.join(),
    );
    assert.equal((await eventsOf(t, id)).filter((e) => e.type === 'ASSIGNMENT_CHANGED').length, 1);
  });

  it('routes a batch in one call: each booking its own assignment, event and emails; others are skipped', async () => {
    const drafts = [
      await seedBooking(t, { status: 'DRAFT', start: '2027-02-02T10:00:00Z', member: MEMBERS.jonas }),
      await seedBooking(t, { status: 'DRAFT', start: '2027-02-02T11:00:00Z', member: MEMBERS.amara }),
      await seedBooking(t, { status: 'DRAFT', start: '2027-02-03T10:00:00Z', member: MEMBERS.jonas }),
    ];
    const done = await seedBooking(t, { status: 'SCHEDULED', start: '2027-02-04T10:00:00Z', member: MEMBERS.amara });
    // a COLLECTIVE type that requires confirmation, holding both hosts
    const collective = await seedBooking(t, {
      status: 'DRAFT',
      eventTypeId: 'et_planning_session',
      start: '2027-02-08T10:00:00Z',
      member: MEMBERS.jonas,
    });
    await t.db.pool.query(
      `insert into booking_members (booking_id, member_id, mode, start_time, during) select booking_id, $2, mode, start_time, during from booking_members where booking_id = $1`,
      [collective, MEMBERS.amara],
    );
    const outcomes = await routeBookings(deps(), [...drafts, done, collective, 'bkg_missing']);
    assert.deepEqual(Object.fromEntries(outcomes), {
      [drafts[0]]: 'routed',
      [drafts[1]]: 'routed',
      [drafts[2]]: 'routed',
      [done]: 'skipped',
      [collective]: 'routed',
      bkg_missing: 'skipped',
    });
    const planning = (await t.request('GET', `/v1/bookings/${collective}`, { key: KEYS.secret })).body.booking;
    assert.equal(planning.status, 'PENDING_CONFIRMATION');
    assert.equal(planning.assigned_to_id, MEMBERS.amara, 'host order, not hold order');
    assert.deepEqual(planning.host_ids, [MEMBERS.amara, MEMBERS.jonas]);
    const requests = (await t.db.pool.query('select kind, recipient_role, ics from email_outbox where booking_id = $1', [collective])).rows;
    // the hosts are invited tentatively, the attendee only told it waits
    assert.ok(
      requests.length > 0 && requests.every((m) => m.kind === 'confirmation_request' && (m.ics !== null) === (m.recipient_role === 'host')),
      JSON.stringify(requests),
    );
    for (const [i, member] of [MEMBERS.jonas, MEMBERS.amara, MEMBERS.jonas].entries()) {
      const b = (await t.request('GET', `/v1/bookings/${drafts[i]}`, { key: KEYS.secret })).body.booking;
      assert.equal(b.status, 'SCHEDULED');
      assert.equal(b.assigned_to_id, member);
      assert.deepEqual(b.host_ids, [member]);
      const changes = (await eventsOf(t, drafts[i])).filter((e) => e.type === 'ASSIGNMENT_CHANGED');
      assert.equal(changes.length, 1);
      assert.equal(changes[0].data.id, drafts[i]);
      const mails = (
        await t.db.pool.query(
          'select recipient_role, ics_uid, ics_sequence from email_outbox where booking_id = $1 order by recipient_role',
          [drafts[i]],
        )
      ).rows;
      assert.deepEqual(
        mails.map((m) => [m.recipient_role, m.ics_uid, m.ics_sequence]),
        [
          ['attendee', `${drafts[i]}@booking-service`, 0],
          ['host', `${drafts[i]}@booking-service`, 0],
        ],
      );
    }
    assert.deepEqual(await eventsOf(t, done), []);
    assert.equal(await routeBooking(deps(), drafts[0]), 'skipped', 'a second run changes nothing');

    // Two changes of one meeting in one batch of emails get consecutive SEQUENCE numbers.
    await transaction(t.db.pool, (tx) =>
      enqueueBookingEmails(tx, [
        { bookingId: drafts[0], kind: 'scheduled' },
        { bookingId: drafts[0], kind: 'scheduled' },
      ]),
    );
    const sequences = (
      await t.db.pool.query('select distinct ics_sequence from email_outbox where booking_id = $1 order by 1', [drafts[0]])
    ).rows;
    assert.deepEqual(
      sequences.map((r) => r.ics_sequence),
      [0, 1, 2],
    );
  });

  it('COLLECTIVE: a held member who stopped being a host since the create comes after the hosts', async () => {
    const id = await seedBooking(t, {
      status: 'DRAFT',
      eventTypeId: 'et_planning_session',
      start: '2027-02-09T10:00:00Z',
      member: MEMBERS.amara,
    });
    await t.db.pool.query(
      `insert into booking_members (booking_id, member_id, mode, start_time, during) select booking_id, $2, mode, start_time, during from booking_members where booking_id = $1`,
      [id, MEMBERS.jonas],
    );
    const before = (await t.db.pool.query(`select host_ids from event_types where id = 'et_planning_session'`)).rows[0].host_ids;
    await t.db.pool.query(`update event_types set host_ids = array[$1]::uuid[] where id = 'et_planning_session'`, [MEMBERS.jonas]);
    try {
      assert.equal(await routeBooking(deps(), id), 'routed');
    } finally {
      await t.db.pool.query(`update event_types set host_ids = $1 where id = 'et_planning_session'`, [before]);
    }
    const routed = (await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.secret })).body.booking;
    assert.equal(routed.assigned_to_id, MEMBERS.jonas);
    assert.deepEqual(routed.host_ids, [MEMBERS.jonas, MEMBERS.amara]);
  });

  it('a booking another transaction holds is "busy" at once, not waited for, and routed once it is free', async () => {
    const id = await seedBooking(t, { status: 'DRAFT', start: '2027-02-05T10:00:00Z', member: MEMBERS.jonas });
    const other = await lockBooking(id, 'update');
    try {
      const started = Date.now();
      const outcomes = await routeBookings(deps(), [id, 'bkg_missing']);
      assert.ok(Date.now() - started < 2000, 'did not wait for the lock');
      assert.deepEqual(Object.fromEntries(outcomes), { [id]: 'busy', bkg_missing: 'skipped' });
    } finally {
      await release(other);
    }
    // a row inserted elsewhere that references the booking (KEY SHARE) does not make it busy
    const referencing = await lockBooking(id, 'key share');
    try {
      assert.equal(await routeBooking(deps(), id), 'routed');
    } finally {
      await release(referencing);
    }
  });

  it('the job of a booking held for a moment routes it in the same attempt, well within a second', async () => {
    const id = await seedBooking(t, { status: 'DRAFT', start: '2027-02-06T11:00:00Z', member: MEMBERS.jonas });
    const other = await lockBooking(id, 'update');
    let queuedAt: number;
    try {
      await t.db.pool.query(`select graphile_worker.add_job('route-booking', json_build_object('bookingId', $1::text), job_key => $1)`, [
        id,
      ]);
      queuedAt = Date.now();
      // a cancel or PATCH holds the row for milliseconds; this one for 150 ms, once the job has run
      let running = 0;
      for (let i = 0; i < 300 && !running; i++) {
        running =
          (await t.db.pool.query(`select 1 from graphile_worker.jobs where key = $1 and locked_at is not null`, [id])).rowCount ?? 0;
        if (!running) await new Promise((r) => setTimeout(r, 10));
      }
      assert.ok(running, 'the job started while the row was held');
      await new Promise((r) => setTimeout(r, 150));
    } finally {
      await release(other);
    }
    const routed = await waitForStatusChange(t, id, 'DRAFT', KEYS.secret, 5_000);
    assert.equal(routed.status, 'SCHEDULED');
    assert.ok(Date.now() - queuedAt! < 1500, `routed ${Date.now() - queuedAt!} ms after queueing`);
    // the job's completion is its own statement, a moment after the routing commit
    let job: { attempts: number; last_error: string | null }[] = [];
    for (let i = 0; i < 100; i++) {
      job = (await t.db.pool.query(`select attempts, last_error from graphile_worker.jobs where key = $1`, [id])).rows;
      if (job.length === 0 || job[0]!.last_error !== null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(job, [], 'the job completed, no failed attempt left behind');
  });

  it('the job of a booking held longer fails and is retried by the queue, which then routes it', async () => {
    const id = await seedBooking(t, { status: 'DRAFT', start: '2027-02-06T10:00:00Z', member: MEMBERS.amara });
    const other = await lockBooking(id, 'update');
    try {
      await t.db.pool.query(`select graphile_worker.add_job('route-booking', json_build_object('bookingId', $1::text), job_key => $1)`, [
        id,
      ]);
      let failed;
      for (let i = 0; i < 100 && !failed; i++) {
        await new Promise((r) => setTimeout(r, 50));
        failed = (
          await t.db.pool.query(`select attempts, last_error from graphile_worker.jobs where key = $1 and last_error is not null`, [id])
        ).rows[0];
      }
      assert.ok(failed, 'the job ran and failed');
      assert.match(failed.last_error, /locked by another transaction/);
    } finally {
      await release(other);
    }
    // graphile-worker's first retry comes about 3 s later
    const routed = await waitForStatusChange(t, id, 'DRAFT', KEYS.secret, 15_000);
    assert.equal(routed.status, 'SCHEDULED');
    assert.equal(routed.assigned_to_id, MEMBERS.amara);
  });

  it('every booking that got 201 in a race is routed (none dropped)', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => create(t, introBody('2026-12-09T10:00:00Z'))));
    const winners = results.filter((r) => r.status === 201).map((r) => r.body.booking.id);
    assert.equal(winners.length, 2);
    assert.equal(results.filter((r) => r.status === 409).length, 28);
    const routed = await Promise.all(winners.map((id) => waitForStatusChange(t, id, 'DRAFT')));
    assert.deepEqual(
      routed.map((b) => b.status),
      ['SCHEDULED', 'SCHEDULED'],
    );
    assert.deepEqual(routed.map((b) => b.assigned_to_id).sort(), [MEMBERS.amara, MEMBERS.jonas].sort());
  });
});
