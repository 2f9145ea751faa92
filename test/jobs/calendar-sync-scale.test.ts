import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { calendarSeed, syncNow, vevent } from '../helpers/calendar-fixtures.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';

// Tuesday 2026-12-01 06:00 UTC; Amara works Mon–Fri 09:00–17:00 Europe/London (UTC+0 in winter).
const NOW = new Date('2026-12-01T06:00:00Z');
const EVENTS = 10_000;
const SHORT_TYPE = 'et_amara_ten';
const skip = skipWithoutRadicale();

let radicale: Radicale;
let t: TestApp;

/** 10,000 one-hour events, one every 15 minutes from 2026-12-14 on, every third a weekly series of 4. */
function bigCalendar(): Record<string, string> {
  const events: Record<string, string> = {};
  const base = Date.parse('2026-12-14T00:00:00Z');
  for (let i = 0; i < EVENTS; i++) {
    const start = new Date(base + i * 15 * 60_000).toISOString();
    const end = new Date(base + i * 15 * 60_000 + 3_600_000).toISOString();
    events[`ev-${i}.ics`] = vevent(`ev-${i}`, start, end, i % 3 === 0 ? ['RRULE:FREQ=WEEKLY;COUNT=4'] : []);
  }
  return events;
}

before(async () => {
  if (skip) return;
  radicale = await startRadicale({
    users: { amara: 'amara-pw', jonas: 'jonas-pw' },
    // written into the storage folder before the server starts: PUTting 10,000 events takes minutes
    preload: { amara: { big: { displayName: 'Big', events: bigCalendar() } } },
  });
  await radicale.createCalendar('jonas', 'work', 'Work');
  const seed = calendarSeed([
    { id: 'cal_amara_big', url: radicale.calendarUrl('amara', 'big'), username: 'amara', password: 'amara-pw' },
    { id: 'cal_jonas_work', member: MEMBERS.jonas, url: radicale.calendarUrl('jonas', 'work'), username: 'jonas', password: 'jonas-pw' },
  ]);
  const org = seed.organizations[0];
  const jonas = org.members.find((m: { id: string }) => m.id === MEMBERS.jonas);
  jonas.max_bookings_per_day = 100;
  org.event_types.push({
    id: SHORT_TYPE,
    team_id: 'team_advisors',
    name: 'Jonas quick',
    slug: 'jonas-quick',
    duration: 10,
    slot_interval: 10,
    minimum_booking_notice: 0,
    scheduling_type: 'SOLO',
    requires_confirmation: false,
    workload: { prep: 0, meeting: 10, implementation: 0, admin: 0 },
    custom_fields: [],
    host_ids: [MEMBERS.jonas],
  });
  t = await startApp({ now: NOW, seed, env: { CALENDAR_REQUEST_TIMEOUT_MS: '120000' } });
});

after(async () => {
  await t?.close();
  await radicale?.stop();
});

describe('calendar sync at scale and under races', { skip }, () => {
  it('a 10,000-event calendar syncs through CalDAV; a second sync while it runs is refused; unchanged costs one request', async () => {
    const started = Date.now();
    const first = syncNow(t, 'cal_amara_big');
    // the lease: a second sync of the same calendar (another worker) does nothing while the first runs
    await new Promise((r) => setTimeout(r, 100));
    const second = await syncNow(t, 'cal_amara_big');
    assert.equal(second.status, 'SKIPPED');
    const r = await first;
    const ms = Date.now() - started;
    assert.equal(r.status, 'SUCCESS', r.error ?? '');
    assert.equal(r.events, EVENTS);
    assert.equal(r.skipped, 0);
    // every third event repeats 4 times; all of it lies inside the 180-day window
    const expected = EVENTS + Math.ceil(EVENTS / 3) * 3;
    assert.equal(r.busyBlocks, expected);
    console.log(`# full sync of ${EVENTS} events: ${ms} ms, ${r.requests} requests, ${Math.round(EVENTS / (ms / 1000))} events/s`);

    const again = await syncNow(t, 'cal_amara_big');
    assert.equal(again.status, 'SUCCESS');
    assert.equal(again.requests, 1);
    assert.equal(again.changed, false);

    // one changed event: the token names it, one multiget fetches it, only its blocks are replaced
    await radicale.putEvent('amara', 'big', 'ev-1.ics', vevent('ev-1', '2027-01-04T09:00:00Z', '2027-01-04T09:30:00Z'));
    const one = await syncNow(t, 'cal_amara_big');
    assert.equal(one.status, 'SUCCESS');
    assert.equal(one.requests, 2);
    assert.equal(one.events, EVENTS);
    const row = await t.db.pool.query(
      `select start_time from calendar_busy where calendar_id = 'cal_amara_big' and href like '%/ev-1.ics'`,
    );
    assert.deepEqual(
      row.rows.map((x) => x.start_time.toISOString()),
      ['2027-01-04T09:00:00.000Z'],
    );
  });

  it('a sync landing while creates target the time it makes busy: no create that checked after its commit gets the time', async () => {
    // Wednesday 2026-12-09, 08:00–16:00 Berlin (07:00–15:00 UTC) for Jonas: 48 ten-minute slots
    await radicale.putEvent('jonas', 'work', 'block.ics', vevent('block-1', '2026-12-09T07:00:00Z', '2026-12-09T16:00:00Z'));
    const sends: { sentAt: number; status: number }[] = [];
    let syncDone = Infinity;
    const creates: Promise<void>[] = [];
    // creates go out every 8 ms, the sync after the 15th, and they keep going until ten were sent after
    // its commit: how long a sync takes depends on the machine, so the count, not the time, ends the race
    const WANTED_AFTER = 10;
    let sentAfter = 0;
    for (let i = 0; sentAfter < WANTED_AFTER && i < 1_000; i++) {
      if (i === 15) {
        void syncNow(t, 'cal_jonas_work').then((r) => {
          assert.equal(r.status, 'SUCCESS', r.error ?? '');
          syncDone = Date.now();
        });
      }
      const at = new Date(Date.parse('2026-12-09T07:00:00Z') + (i % 48) * 10 * 60_000).toISOString();
      const sentAt = Date.now();
      if (sentAt > syncDone) sentAfter++;
      creates.push(
        t
          .request('POST', '/v1/bookings', {
            key: KEYS.secret,
            body: { event_type_id: SHORT_TYPE, requested_time: at, attendee: { name: `Guest ${i}`, email: `guest${i}@example.com` } },
          })
          .then((res) => void sends.push({ sentAt, status: res.status })),
      );
      await new Promise((r) => setTimeout(r, 8));
    }
    await Promise.all(creates);
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(Number.isFinite(syncDone), 'the sync finished');
    const after = sends.filter((s) => s.sentAt > syncDone);
    assert.ok(after.length >= WANTED_AFTER, `only ${after.length} creates were sent after the sync committed`);
    for (const s of after) assert.equal(s.status, 409, 'a create sent after the sync committed was accepted over the busy time');
    for (const s of sends) assert.ok(s.status === 201 || s.status === 409, `unexpected ${s.status}`);
    // and from now on the day is closed
    const res = await t.request('GET', `/v1/availability?event_type_id=${SHORT_TYPE}&start_date=2026-12-09&end_date=2026-12-09`, {
      key: KEYS.secret,
    });
    assert.deepEqual(res.body.slots, []);
  });
});
