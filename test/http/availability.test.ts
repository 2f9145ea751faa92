import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as eventTypes from '../../src/db/queries/event-types.ts';
import { freeHostsAt } from '../../src/domain/availability/find-slots.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS, testSeed } from '../helpers/fixtures.ts';
import { insertBooking, insertOutOfOffice, keyWith } from '../domain/availability/scheduling-fixtures.ts';
import { seedBooking } from './bookings-helpers.ts';

// Monday 2026-11-23 09:00 UTC. Amara: Europe/London (UTC+0 now) Mon–Fri 09–17; Jonas: Europe/Berlin
// (UTC+1) Mon–Thu 08–16 = 07–15 UTC. Intro call: ROUND_ROBIN, 30 min, every 15, buffer_after 10, notice 120.
const NOW = new Date('2026-11-23T09:00:00Z');
let t: TestApp;
let teamOnlyKey: string;
before(async () => {
  t = await startApp({ now: NOW });
  teamOnlyKey = await keyWith(t.db.pool, ['team:read']);
});
after(async () => t?.close());

const avail = (query: string, key: string = KEYS.secret) => t.request('GET', `/v1/availability?${query}`, { key });
const starts = (body: { slots: { start: string }[] }) => body.slots.map((s) => s.start.slice(11, 16));
const INTRO = 'event_type_id=et_intro_call';

function quarterHours(from: string, to: string): string[] {
  const out: string[] = [];
  for (let m = Number(from.slice(0, 2)) * 60 + Number(from.slice(3)); m <= Number(to.slice(0, 2)) * 60 + Number(to.slice(3)); m += 15) {
    out.push(`${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
  }
  return out;
}

describe('GET /v1/availability', () => {
  it("ROUND_ROBIN: the union of the hosts' slots, each 30 minutes, UTC, counted in totalSlots", async () => {
    const res = await avail(`${INTRO}&start_date=2026-11-24&end_date=2026-11-24`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.deepEqual(starts(res.body), quarterHours('07:00', '16:30'));
    assert.equal(res.body.totalSlots, 39);
    assert.equal(res.body.slots[0].start, '2026-11-24T07:00:00.000Z');
    assert.equal(res.body.slots[0].end, '2026-11-24T07:30:00.000Z');
  });

  it('accepts the camelCase names and the unprefixed path', async () => {
    const res = await t.request('GET', '/availability?eventTypeId=et_intro_call&startDate=2026-11-24&endDate=2026-11-24', {
      key: KEYS.publishableAnyOrigin,
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.totalSlots, 39);
  });

  it('reads the dates in `timezone`: a Tokyo day is 15:00–15:00 UTC', async () => {
    const res = await avail(`${INTRO}&start_date=2026-11-24&end_date=2026-11-24&timezone=Asia/Tokyo`);
    assert.equal(res.status, 200);
    assert.equal(res.body.slots[0].start, '2026-11-23T15:00:00.000Z');
    assert.equal(res.body.slots.at(-1).start, '2026-11-24T14:45:00.000Z');
  });

  it("follows the host's DST change: Priya's 10:00 New York is 15:00 UTC before 14 Mar 2027 and 14:00 after", async () => {
    const res = await avail('event_type_id=et_onboarding&start_date=2027-03-12&end_date=2027-03-15&timezone=America/New_York');
    assert.equal(res.status, 200);
    const days = new Map<string, string>();
    for (const s of res.body.slots) if (!days.has(s.start.slice(0, 10))) days.set(s.start.slice(0, 10), s.start.slice(11, 16));
    assert.deepEqual(
      [...days],
      [
        ['2027-03-12', '15:00'],
        ['2027-03-15', '14:00'],
      ],
      'weekend off; first slot of each working day',
    );
    // 45-minute slots every 45 minutes from 10:00 to 18:00 local: 10 a day.
    assert.equal(res.body.totalSlots, 20);
  });

  it('applies minimum_booking_notice from the injected clock', async () => {
    const res = await avail(`${INTRO}&start_date=2026-11-23&end_date=2026-11-23`);
    assert.deepEqual(starts(res.body), quarterHours('11:00', '16:30'));
  });

  it('assignedToId restricts to one host', async () => {
    const res = await avail(`${INTRO}&start_date=2026-11-24&end_date=2026-11-24&assignedToId=${MEMBERS.jonas}`);
    assert.deepEqual(starts(res.body), quarterHours('07:00', '14:30'));
  });

  it("COLLECTIVE: only starts every host can take (grid of each host's window, duration as interval)", async () => {
    const res = await avail('event_type_id=et_planning_session&start_date=2026-11-24&end_date=2026-11-24');
    assert.equal(res.status, 200);
    assert.deepEqual(starts(res.body), ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00']);
  });

  it('a booking blocks its buffered interval for its own mode only', async () => {
    await insertBooking(t.db.pool, {
      mode: 'live',
      eventTypeId: 'et_intro_call',
      memberIds: [MEMBERS.amara],
      start: '2026-11-25T10:00:00Z',
      minutes: 30,
      bufferAfter: 10,
    });
    const q = `${INTRO}&start_date=2026-11-25&end_date=2026-11-25&assignedToId=${MEMBERS.amara}`;
    const live = await avail(q, KEYS.live);
    // [s, s + 30 + 10) must clear [10:00, 10:40): 09:30 ends its buffer at 10:10, so 09:30–10:30 are taken.
    const blocked = ['09:30', '09:45', '10:00', '10:15', '10:30'];
    assert.deepEqual(
      starts(live.body),
      quarterHours('09:00', '16:30').filter((s) => !blocked.includes(s)),
    );
    const test = await avail(q, KEYS.secret);
    assert.deepEqual(starts(test.body), quarterHours('09:00', '16:30'), 'test mode never sees live bookings');
  });

  it('cancelled bookings do not block; out-of-office does', async () => {
    await insertBooking(t.db.pool, {
      eventTypeId: 'et_intro_call',
      memberIds: [MEMBERS.amara],
      start: '2026-11-26T09:00:00Z',
      minutes: 30,
      status: 'CANCELLED',
    });
    await insertOutOfOffice(t.db.pool, MEMBERS.amara, '2026-11-26T12:00:00Z', '2026-11-26T13:00:00Z');
    const res = await avail(`${INTRO}&start_date=2026-11-26&end_date=2026-11-26&assignedToId=${MEMBERS.amara}`);
    const got = starts(res.body);
    assert.ok(got.includes('09:00'));
    // the slot plus its 10-minute buffer must clear 12:00–13:00
    for (const s of ['11:30', '11:45', '12:00', '12:45']) assert.ok(!got.includes(s), s);
    assert.ok(got.includes('11:15') && got.includes('13:00'));
  });

  it("max_bookings_per_day counts bookings on the member's local day", async () => {
    // Jonas takes 4 a day; four bookings on Thursday 26 Nov (Berlin) close his day.
    for (const h of ['07', '08', '09', '10']) {
      await insertBooking(t.db.pool, {
        eventTypeId: 'et_intro_call',
        memberIds: [MEMBERS.jonas],
        start: `2026-11-26T${h}:00:00Z`,
        minutes: 30,
      });
    }
    const res = await avail(`${INTRO}&start_date=2026-11-26&end_date=2026-11-26&assignedToId=${MEMBERS.jonas}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.totalSlots, 0);
    const other = await avail(`${INTRO}&start_date=2026-11-24&end_date=2026-11-24&assignedToId=${MEMBERS.jonas}`);
    assert.equal(other.body.totalSlots, 31);
  });

  it('the cached answer follows bookings, event-type changes and seeds made after it was cached', async () => {
    const q = `${INTRO}&start_date=2026-11-30&end_date=2026-11-30&assignedToId=${MEMBERS.amara}`;
    const before = starts((await avail(q)).body);
    assert.ok(before.includes('10:00'));
    // a booking through the API
    const body = {
      event_type_id: 'et_intro_call',
      requested_time: '2026-11-30T10:00:00Z',
      attendee: { name: 'C', email: 'c@example.com' },
      custom_fields: { company: 'Cache Co' },
      assign_to: MEMBERS.amara,
    };
    const made = await t.request('POST', '/v1/bookings', { key: KEYS.secret, body });
    assert.equal(made.status, 201, made.text);
    assert.ok(!starts((await avail(q)).body).includes('10:00'), 'the booked start is gone');
    assert.equal((await t.request('DELETE', `/v1/bookings/${made.body.booking.id}`, { key: KEYS.secret })).status, 200);
    assert.deepEqual(starts((await avail(q)).body), before, 'and back once cancelled');
    // an event-type change
    const patch = (slot_interval: number) =>
      t.request('PATCH', '/v1/event-types/et_intro_call', { key: KEYS.secret, body: { slot_interval } });
    assert.equal((await patch(30)).status, 200);
    try {
      assert.deepEqual(
        starts((await avail(q)).body),
        before.filter((x) => x.endsWith(':00') || x.endsWith(':30')),
      );
    } finally {
      assert.equal((await patch(15)).status, 200);
    }
    assert.deepEqual(starts((await avail(q)).body), before);
    // a seed that changes the member's hours
    const seed = testSeed();
    const amara = seed.organizations[0].members.find((m: { id: string }) => m.id === MEMBERS.amara);
    amara.working_hours = [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], start: '12:00', end: '17:00' }];
    await loadSeed(t.db.pool, validateSeed(seed));
    try {
      assert.deepEqual(
        starts((await avail(q)).body),
        before.filter((x) => x >= '12:00'),
      );
    } finally {
      await loadSeed(t.db.pool, validateSeed(testSeed()));
    }
    assert.deepEqual(starts((await avail(q)).body), before);
  });

  it('a reschedule frees the old start and takes the new one, on the same day and across days', async () => {
    const day = (d: string) => `${INTRO}&start_date=${d}&end_date=${d}&assignedToId=${MEMBERS.amara}`;
    const [tue, wed] = [day('2026-12-01'), day('2026-12-02')];
    // Amara works the same hours on both days: Wednesday, untouched yet, is what a free Tuesday lists
    const free = starts((await avail(wed)).body);
    assert.ok(free.includes('10:00') && free.includes('11:00') && free.includes('14:00'));
    // a routed booking (the API's would wait for the worker), written before Tuesday is first asked for
    const id = await seedBooking(t, { status: 'SCHEDULED', start: '2026-12-01T10:00:00Z', member: MEMBERS.amara });
    assert.ok(!starts((await avail(tue)).body).includes('10:00'));
    const move = (from: string, start_time: string) =>
      t.request('POST', `/v1/bookings/${from}/reschedule`, { key: KEYS.secret, body: { start_time } });
    // the same day: 10:00 comes back, 14:00 goes
    const later = await move(id, '2026-12-01T14:00:00Z');
    assert.equal(later.status, 200, later.text);
    const tueNow = starts((await avail(tue)).body);
    assert.ok(tueNow.includes('10:00'), 'the old start is listed again');
    assert.ok(!tueNow.includes('14:00'), 'the new start is taken');
    // to the next day: Tuesday is whole again, Wednesday's 11:00 goes
    const next = await move(later.body.booking.id, '2026-12-02T11:00:00Z');
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(starts((await avail(tue)).body), free);
    assert.ok(!starts((await avail(wed)).body).includes('11:00'));
    assert.equal((await t.request('DELETE', `/v1/bookings/${next.body.booking.id}`, { key: KEYS.secret })).status, 200);
    assert.deepEqual(starts((await avail(wed)).body), free);
  });

  it('one source of truth: freeHostsAt agrees with every listed start and refuses off-grid ones', async () => {
    const type = (await eventTypes.findVisible(t.db.pool, 'org_northwind', 'et_intro_call'))!;
    const res = await avail(`${INTRO}&start_date=2026-11-24&end_date=2026-11-24`);
    for (const s of res.body.slots.slice(0, 12)) {
      const free = await freeHostsAt(t.db.pool, {
        organizationId: 'org_northwind',
        mode: 'test',
        eventType: type,
        now: NOW,
        start: new Date(s.start),
      });
      assert.equal(free.listed, true, s.start);
      assert.ok(free.memberIds.length > 0);
    }
    const offGrid = await freeHostsAt(t.db.pool, {
      organizationId: 'org_northwind',
      mode: 'test',
      eventType: type,
      now: NOW,
      start: new Date('2026-11-24T09:05:00Z'),
    });
    assert.deepEqual([offGrid.listed, offGrid.memberIds], [false, []]);
    const early = await freeHostsAt(t.db.pool, {
      organizationId: 'org_northwind',
      mode: 'test',
      eventType: type,
      now: NOW,
      start: new Date('2026-11-24T07:00:00Z'),
    });
    assert.deepEqual(early.memberIds, [MEMBERS.jonas]);
    const nonHost = await freeHostsAt(t.db.pool, {
      organizationId: 'org_northwind',
      mode: 'test',
      eventType: type,
      now: NOW,
      start: new Date('2026-11-24T09:00:00Z'),
      assignedToId: MEMBERS.priya,
    });
    assert.deepEqual([nonHost.listed, nonHost.memberIds], [false, []]);
  });

  describe('errors', () => {
    const cases: [string, string][] = [
      ['start_date=2026-11-24&end_date=2026-11-24', 'event_type_id'],
      [`${INTRO}&end_date=2026-11-24`, 'start_date'],
      [`${INTRO}&start_date=2026-11-24`, 'end_date'],
      [`${INTRO}&start_date=2026-02-30&end_date=2026-03-01`, 'start_date'],
      [`${INTRO}&start_date=24-11-2026&end_date=2026-11-24`, 'start_date'],
      [`${INTRO}&start_date=2026-11-24&end_date=2026-11-23`, 'end_date'],
      [`${INTRO}&start_date=2026-11-01&end_date=2027-01-02`, 'end_date'],
      [`${INTRO}&start_date=2026-11-24&end_date=2026-11-24&timezone=Mars/Base`, 'timezone'],
      [`${INTRO}&start_date=2026-11-24&end_date=2026-11-24&timezone=%2B01:00`, 'timezone'],
      [`${INTRO}&start_date=2026-11-24&end_date=2026-11-24&assignedToId=not-a-uuid`, 'assignedToId'],
      [`${INTRO}&start_date=2026-11-24&end_date=2026-11-24&assignedToId=${MEMBERS.priya}`, 'assignedToId'],
    ];
    for (const [query, field] of cases) {
      it(`400 naming ${field}: ${query}`, async () => {
        const res = await avail(query);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'validation_error');
        assert.equal(res.body.error.field, field);
        assert.match(res.body.error.message, new RegExp(field));
      });
    }

    it("assignedToId naming another organization's or an unknown member matches nothing: 200, no slots", async () => {
      for (const id of [MEMBERS.otherOrg, '00000000-0000-4000-8000-000000000000']) {
        const res = await avail(`${INTRO}&start_date=2026-11-24&end_date=2026-11-24&assignedToId=${id}`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { success: true, slots: [], totalSlots: 0 });
      }
    });

    it('allows exactly 62 days', async () => {
      const res = await avail(`${INTRO}&start_date=2026-11-01&end_date=2027-01-01`);
      assert.equal(res.status, 200);
    });

    it("404 for an unknown, inactive or another organization's event type", async () => {
      assert.equal((await avail('event_type_id=nope&start_date=2026-11-24&end_date=2026-11-24')).status, 404);
      assert.equal((await avail('event_type_id=et_globex_demo&start_date=2026-11-24&end_date=2026-11-24')).status, 404);
      await t.db.pool.query(`update event_types set is_active = false where id = 'et_onboarding'`);
      const inactive = await avail('event_type_id=et_onboarding&start_date=2026-11-24&end_date=2026-11-24');
      await t.db.pool.query(`update event_types set is_active = true where id = 'et_onboarding'`);
      assert.equal(inactive.status, 404);
    });

    it('401 without a key, 403 without event-types:read', async () => {
      const q = `/v1/availability?${INTRO}&start_date=2026-11-24&end_date=2026-11-24`;
      assert.equal((await t.request('GET', q)).status, 401);
      const res = await t.request('GET', q, { key: teamOnlyKey });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'forbidden');
    });
  });
});
