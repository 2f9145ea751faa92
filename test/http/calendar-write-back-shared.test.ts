import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resourceUrl } from '../../src/domain/calendars/write-back.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { AMARA_TYPE, calendarSeed, unfolded, waitFor } from '../helpers/calendar-fixtures.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';
import { introBody } from './bookings-helpers.ts';

/**
 * Write-back when two hosts' primary calendars are one collection (a team calendar connected for
 * each of them, through a shared account): moving a meeting from one host to the other rewrites
 * the one event, never deletes it, and its SEQUENCE only grows. And a copy of the meeting without
 * X-BOOKING-ID (a client that drops unknown properties) is still the meeting's, to rewrite.
 */
const NOW = new Date('2026-12-01T06:00:00Z');
const skip = skipWithoutRadicale();

let radicale: Radicale;
let t: TestApp;

before(async () => {
  if (skip) return;
  radicale = await startRadicale({ users: { team: 'team-pw' } });
  await radicale.createCalendar('team', 'shared', 'Team');
  const url = radicale.calendarUrl('team', 'shared');
  t = await startApp({
    now: NOW,
    seed: calendarSeed([
      { id: 'cal_amara_team', url, username: 'team', password: 'team-pw' },
      { id: 'cal_jonas_team', member: MEMBERS.jonas, url, username: 'team', password: 'team-pw' },
    ]),
    worker: true,
  });
});

after(async () => {
  await t?.close();
  await radicale?.stop();
});

/** The meeting's event once its write-back jobs are done and `ready` holds for its text. */
async function settledEvent(root: string, ready: (text: string) => boolean): Promise<string> {
  const href = resourceUrl(radicale.calendarUrl('team', 'shared'), `${root}@booking-service`);
  return waitFor(`the event of ${root}`, async () => {
    const jobs = await t.db.pool.query(
      `select count(*)::int as n from graphile_worker.jobs where task_identifier = 'write-calendar-event'`,
    );
    if (jobs.rows[0].n > 0) return undefined;
    const r = await radicale.get('team', href);
    return r.status === 200 && ready(unfolded(r.text)) ? unfolded(r.text) : undefined;
  });
}

describe('write-back to one collection connected for two hosts', { skip }, () => {
  let root: string;

  it('a reschedule to the other host rewrites the shared event, with a higher SEQUENCE, and keeps it', async () => {
    const made = await t.request('POST', '/v1/bookings', {
      key: KEYS.live,
      body: introBody('2026-12-02T09:00:00Z', { assign_to: MEMBERS.amara }),
    });
    assert.equal(made.status, 201, made.text);
    root = made.body.booking.id;
    const first = await settledEvent(root, () => true);
    assert.match(first, /^SEQUENCE:0\r$/m);
    // Amara is booked at 11:00 (her hold, not her calendar): only Jonas can take the new time
    const busy = await t.request('POST', '/v1/bookings', {
      key: KEYS.live,
      body: { event_type_id: AMARA_TYPE, requested_time: '2026-12-02T11:00:00Z', attendee: { name: 'Bo', email: 'bo@example.com' } },
    });
    assert.equal(busy.status, 201, busy.text);
    const moved = await t.request('POST', `/v1/bookings/${root}/reschedule`, {
      key: KEYS.live,
      body: { start_time: '2026-12-02T11:00:00Z' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.booking.assigned_to_id, MEMBERS.jonas);
    const text = await settledEvent(root, (x) => x.includes(`X-BOOKING-ID:${moved.body.booking.id}`));
    assert.match(text, /^DTSTART:20261202T110000Z\r$/m);
    assert.match(text, /^SEQUENCE:1\r$/m);
    const writes = await t.db.pool.query('select calendar_id from calendar_event_writes where root_booking_id = $1', [root]);
    assert.deepEqual(
      writes.rows.map((w) => w.calendar_id),
      ['cal_jonas_team'],
    );
    const calendars = await t.request('GET', `/v1/calendars?userId=${MEMBERS.jonas}`, { key: KEYS.secret });
    assert.equal(calendars.body.calendars.find((c: { id: string }) => c.id === 'cal_jonas_team').syncError, null);
  });

  it('a copy of the meeting without X-BOOKING-ID is rewritten, not refused as a stranger', async () => {
    const href = resourceUrl(radicale.calendarUrl('team', 'shared'), `${root}@booking-service`);
    const name = href.split('/').pop()!;
    const copy = (await radicale.get('team', href)).text.replace(/\r\nX-BOOKING-ID:[^\r]*/, '');
    assert.ok(!copy.includes('X-BOOKING-ID'));
    await radicale.putEvent('team', 'shared', decodeURIComponent(name), copy);
    const current = (await t.request('GET', `/v1/bookings/${root}`, { key: KEYS.live })).body.booking.rescheduled_to as string;
    const patched = await t.request('PATCH', `/v1/bookings/${current}`, {
      key: KEYS.live,
      body: { attendee: { name: 'Grace Hopper', email: 'grace@example.com' } },
    });
    assert.equal(patched.status, 200, patched.text);
    const text = await settledEvent(root, (x) => x.includes('mailto:grace@example.com'));
    assert.match(text, new RegExp(`^X-BOOKING-ID:${current}\\r$`, 'm'));
    assert.match(text, /^SEQUENCE:2\r$/m);
    const calendars = await t.request('GET', `/v1/calendars?userId=${MEMBERS.jonas}`, { key: KEYS.secret });
    const cal = calendars.body.calendars.find((c: { id: string }) => c.id === 'cal_jonas_team');
    assert.equal(cal.syncError, null);
  });
});
