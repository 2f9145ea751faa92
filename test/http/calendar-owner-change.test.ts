import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import type { SeedJson } from '../helpers/fixtures.ts';
import { AMARA_TYPE, allDayEvent, calendarSeed, soloType, syncNow, vevent } from '../helpers/calendar-fixtures.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';

/**
 * Decisions.md §7 and §2: a calendar's busy time is its member's. A seed that gives a connected
 * calendar to another member, or changes the member's zone, must move the busy time with it at
 * once: the new owner is never booked over the calendar's events, and the old one is free again.
 */

// Tuesday 2026-12-01 06:00 UTC. Amara works Mon–Fri 09:00–17:00 London (UTC), Jonas Mon–Thu
// 08:00–16:00 Berlin (07:00–15:00 UTC): both can take Wednesday 11:00 UTC.
const NOW = new Date('2026-12-01T06:00:00Z');
const JONAS_TYPE = 'et_jonas_solo';
const skip = skipWithoutRadicale();

let radicale: Radicale;
let t: TestApp;

function seedWith(owner: string, edit: (seed: SeedJson) => void = () => {}): SeedJson {
  const seed = calendarSeed([
    { id: 'cal_work', member: owner, url: radicale.calendarUrl('amara', 'work'), username: 'amara', password: 'amara-pw' },
  ]);
  seed.organizations[0].event_types.push(soloType({ id: JONAS_TYPE, name: 'Jonas call', slug: 'jonas-call', host: MEMBERS.jonas }));
  edit(seed);
  return seed;
}

before(async () => {
  if (skip) return;
  radicale = await startRadicale({ users: { amara: 'amara-pw' } });
  await radicale.createCalendar('amara', 'work', 'Work');
  await radicale.putEvent('amara', 'work', 'dentist.ics', vevent('dentist-1', '2026-12-02T11:00:00Z', '2026-12-02T12:00:00Z'));
  t = await startApp({ now: NOW, seed: seedWith(MEMBERS.amara) });
});

after(async () => {
  await t?.close();
  await radicale?.stop();
});

const reseed = async (seed: SeedJson) => {
  await loadSeed(t.db.pool, validateSeed(seed), { secretKey: t.config.webhookSecretKey });
  await t.settle();
};

/** The UTC starts GET /availability lists for the type on Wednesday 2026-12-02. */
const slots = async (type: string) => {
  const res = await t.request('GET', `/v1/availability?event_type_id=${type}&start_date=2026-12-02&end_date=2026-12-02`, {
    key: KEYS.secret,
  });
  assert.equal(res.status, 200, res.text);
  return res.body.slots.map((s: { start: string }) => s.start.slice(11, 16));
};

const busyRows = async () =>
  (
    await t.db.pool.query<{ href: string; member_id: string; start_time: Date }>(
      'select href, member_id, start_time from calendar_busy order by href',
    )
  ).rows;

describe('a connected calendar given to another member by seed', { skip }, () => {
  it('its busy time moves to the new owner at once: the old one is free, the new one is never booked over it', async () => {
    assert.equal((await syncNow(t, 'cal_work')).status, 'SUCCESS');
    assert.ok(!(await slots(AMARA_TYPE)).includes('11:00'));
    assert.ok((await slots(JONAS_TYPE)).includes('11:00'), 'Jonas is free before he owns the calendar');

    await reseed(seedWith(MEMBERS.jonas));
    // no sync has run since: the blocks moved with the seed
    assert.ok((await slots(AMARA_TYPE)).includes('11:00'), 'Amara is free again');
    assert.ok(!(await slots(JONAS_TYPE)).includes('11:00'), 'Jonas is busy at once');
    const refused = await t.request('POST', '/v1/bookings', {
      key: KEYS.secret,
      body: { event_type_id: JONAS_TYPE, requested_time: '2026-12-02T11:00:00Z', attendee: { name: 'Ada', email: 'ada@example.com' } },
    });
    assert.equal(refused.status, 409, refused.text);
    const fb = await t.request('GET', `/v1/freebusy/${MEMBERS.jonas}?start=2026-12-02T11:00:00Z&end=2026-12-02T12:00:00Z&time_slot=60`);
    assert.equal(fb.body.slots[0].status, 'busy', fb.text);
    // and a sync is on its way to expand the calendar again for its owner
    const job = await t.db.pool.query(`select 1 from graphile_worker.jobs where key = 'calendar-sync:cal_work'`);
    assert.equal(job.rowCount, 1);

    assert.equal((await syncNow(t, 'cal_work')).status, 'SUCCESS');
    assert.deepEqual(
      (await busyRows()).map((r) => r.member_id),
      [MEMBERS.jonas],
    );
    assert.ok(!(await slots(JONAS_TYPE)).includes('11:00'));
    assert.ok((await slots(AMARA_TYPE)).includes('11:00'));
  });

  it("an all-day event is expanded again in the owner's new zone at the next sync", async () => {
    await radicale.putEvent('amara', 'work', 'offsite.ics', allDayEvent('offsite-1', '20261203', '20261204'));
    assert.equal((await syncNow(t, 'cal_work')).status, 'SUCCESS');
    const offsite = async () => (await busyRows()).find((r) => r.href.endsWith('offsite.ics'))!.start_time.toISOString();
    assert.equal(await offsite(), '2026-12-02T23:00:00.000Z', "Thursday in Jonas's Berlin");

    const toLondon = seedWith(MEMBERS.jonas, (seed) => {
      seed.organizations[0].members.find((m: { id: string }) => m.id === MEMBERS.jonas).timezone = 'Europe/London';
    });
    await reseed(toLondon);
    // the calendar and its window are unchanged: only the zone says to expand it again
    const r = await syncNow(t, 'cal_work');
    assert.equal(r.status, 'SUCCESS');
    assert.equal(await offsite(), '2026-12-03T00:00:00.000Z', 'Thursday in London');
    // the same file again changes nothing and queues nothing more
    await t.db.pool.query(`select graphile_worker.remove_job('calendar-sync:cal_work')`);
    await reseed(toLondon);
    const job = await t.db.pool.query(`select 1 from graphile_worker.jobs where key = 'calendar-sync:cal_work'`);
    assert.equal(job.rowCount, 0);
  });
});
