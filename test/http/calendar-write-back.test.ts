import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resourceUrl } from '../../src/domain/calendars/write-back.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { AMARA_TYPE, calendarSeed, soloType, syncNow, unfolded, vevent, waitFor } from '../helpers/calendar-fixtures.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';
import { introBody } from './bookings-helpers.ts';

// Tuesday 2026-12-01 06:00 UTC; Amara works Mon–Fri 09:00–17:00 Europe/London.
const NOW = new Date('2026-12-01T06:00:00Z');
const skip = skipWithoutRadicale();

let radicale: Radicale;
let t: TestApp;

before(async () => {
  if (skip) return;
  radicale = await startRadicale({ users: { amara: 'amara-pw', priya: 'priya-pw', jonas: 'jonas-pw' } });
  await radicale.createCalendar('amara', 'work', 'Work');
  await radicale.createCalendar('jonas', 'work', 'Work');
  const seed = calendarSeed([
    { id: 'cal_amara_caldav', url: radicale.calendarUrl('amara', 'work'), username: 'amara', password: 'amara-pw' },
    { id: 'cal_jonas_caldav', member: MEMBERS.jonas, url: radicale.calendarUrl('jonas', 'work'), username: 'jonas', password: 'jonas-pw' },
    // a collection that does not exist: every write to it fails (HTTP 409), never with 401
    {
      id: 'cal_priya_broken',
      member: MEMBERS.priya,
      url: radicale.calendarUrl('priya', 'missing'),
      username: 'priya',
      password: 'priya-pw',
    },
  ]);
  const org = seed.organizations[0];
  org.event_types.push(
    soloType({ id: 'et_amara_confirm', name: 'Amara review', slug: 'amara-review', host: MEMBERS.amara, requiresConfirmation: true }),
    soloType({ id: 'et_priya_solo', name: 'Priya call', slug: 'priya-call', host: MEMBERS.priya, team: 'team_support' }),
  );
  t = await startApp({ now: NOW, seed, worker: true, env: { CALENDAR_WRITE_ATTEMPTS: '2' } });
});

after(async () => {
  await t?.close();
  await radicale?.stop();
});

const book = async (type: string, time: string, key: string = KEYS.live) => {
  const res = await t.request('POST', '/v1/bookings', {
    key,
    body: {
      event_type_id: type,
      requested_time: time,
      attendee: { name: 'Ada Lovelace', email: 'ada@example.com', timezone: 'Europe/London' },
    },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.booking.id as string;
};
const href = (rootId: string) => resourceUrl(radicale.calendarUrl('amara', 'work'), `${rootId}@booking-service`);
/** The event text once `ready` holds for it (the write-back runs on the worker). */
const eventWhen = (rootId: string, ready: (text: string) => boolean) =>
  waitFor(`the event of ${rootId}`, async () => {
    const r = await radicale.get('amara', href(rootId));
    return r.status === 200 && ready(r.text) ? r.text : undefined;
  });
describe("booking write-back to the host's primary CalDAV calendar", { skip }, () => {
  let root: string;

  it('a seeded calendar syncs by itself once a worker runs, and its next sync waits CALENDAR_SYNC_INTERVAL', async () => {
    await waitFor('the first sync', async () => {
      const res = await t.request('GET', `/v1/calendars?userId=${MEMBERS.amara}`, { key: KEYS.secret });
      return res.body.calendars.find((c: { id: string; syncStatus: string }) => c.id === 'cal_amara_caldav' && c.syncStatus === 'SUCCESS');
    });
    const next = await waitFor(
      'the next sync job',
      async () =>
        (
          await t.db.pool.query(
            // (the first sync's own job keeps the key until it completes: the next one runs later)
            `select key, run_at from graphile_worker.jobs
        where task_identifier = 'sync-calendar' and key = 'calendar-sync:cal_amara_caldav' and run_at > now() + interval '1 minute'`,
          )
        ).rows[0],
    );
    // the injected clock is NOW; the job runs the default 300 s after it
    assert.equal(next.run_at.toISOString(), new Date(NOW.getTime() + 300_000).toISOString());
  });

  it('routing writes <UID>.ics, CONFIRMED, with X-BOOKING-ID; the sync does not count it twice', async () => {
    root = await book(AMARA_TYPE, '2026-12-02T10:00:00Z');
    const text = unfolded(await eventWhen(root, () => true));
    assert.match(text, new RegExp(`^UID:${root}@booking-service\\r$`, 'm'));
    assert.match(text, /^STATUS:CONFIRMED\r$/m);
    assert.match(text, new RegExp(`^X-BOOKING-ID:${root}\\r$`, 'm'));
    assert.match(text, /^DTSTART:20261202T100000Z\r$/m);
    assert.match(text, /^DTEND:20261202T103000Z\r$/m);
    assert.match(text, /^ATTENDEE;CN=Ada Lovelace;.*SCHEDULE-AGENT=CLIENT:mailto:ada@example\.com\r$/m);
    assert.ok(!/^METHOD:/m.test(text));
    const r = await syncNow(t, 'cal_amara_caldav');
    assert.equal(r.status, 'SUCCESS', r.error ?? '');
    assert.equal(r.busyBlocks, 0);
    const rows = await t.db.pool.query('select count(*)::int as n from calendar_busy');
    assert.equal(rows.rows[0].n, 0);
  });

  it("an attendee PATCH updates the event's ATTENDEE", async () => {
    const res = await t.request('PATCH', `/v1/bookings/${root}`, {
      key: KEYS.live,
      body: { attendee: { name: 'Grace Hopper', email: 'grace@example.com' } },
    });
    assert.equal(res.status, 200, res.text);
    const text = unfolded(await eventWhen(root, (x) => unfolded(x).includes('mailto:grace@example.com')));
    assert.match(text, /^ATTENDEE;CN=Grace Hopper;.*:mailto:grace@example\.com\r$/m);
    assert.ok(!text.includes('ada@example.com'));
    assert.match(text, /^SEQUENCE:1\r$/m);
  });

  it('a reschedule moves the same UID to the new time and names the new booking', async () => {
    const res = await t.request('POST', `/v1/bookings/${root}/reschedule`, {
      key: KEYS.live,
      body: { start_time: '2026-12-02T13:00:00Z' },
    });
    assert.equal(res.status, 200, res.text);
    const moved = res.body.booking.id;
    const text = unfolded(await eventWhen(root, (x) => x.includes('DTSTART:20261202T130000Z')));
    assert.match(text, new RegExp(`^UID:${root}@booking-service\\r$`, 'm'));
    assert.match(text, new RegExp(`^X-BOOKING-ID:${moved}\\r$`, 'm'));
    assert.deepEqual(await radicale.list('amara', 'work'), [`${root}@booking-service.ics`]);
    root = moved;
  });

  it('a cancel deletes the event', async () => {
    const res = await t.request('DELETE', `/v1/bookings/${root}`, { key: KEYS.live, body: { reason: 'no longer needed' } });
    assert.equal(res.status, 200, res.text);
    await waitFor('the event to be deleted', async () => (await radicale.list('amara', 'work')).length === 0);
  });

  it('PENDING_CONFIRMATION writes TENTATIVE; confirm makes it CONFIRMED', async () => {
    const id = await book('et_amara_confirm', '2026-12-03T11:00:00Z');
    const text = unfolded(await eventWhen(id, () => true));
    assert.match(text, /^STATUS:TENTATIVE\r$/m);
    const res = await t.request('POST', `/v1/bookings/${id}/confirm`, { key: KEYS.live });
    assert.equal(res.status, 200, res.text);
    await eventWhen(id, (x) => /^STATUS:CONFIRMED\r$/m.test(x));
  });

  it("a reschedule that changes the host moves the event from one host's calendar to the other's", async () => {
    const res = await t.request('POST', '/v1/bookings', {
      key: KEYS.live,
      body: introBody('2026-12-02T09:00:00Z', { assign_to: MEMBERS.amara }),
    });
    assert.equal(res.status, 201, res.text);
    const id = res.body.booking.id;
    await eventWhen(id, () => true);
    // Amara's own calendar fills 11:00–12:00: only Jonas can take the new time
    await radicale.putEvent('amara', 'work', 'busy.ics', vevent('amara-busy', '2026-12-02T11:00:00Z', '2026-12-02T12:00:00Z'));
    assert.equal((await syncNow(t, 'cal_amara_caldav')).status, 'SUCCESS');
    const moved = await t.request('POST', `/v1/bookings/${id}/reschedule`, {
      key: KEYS.live,
      body: { start_time: '2026-12-02T11:00:00Z' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.booking.assigned_to_id, MEMBERS.jonas);
    const jonasHref = resourceUrl(radicale.calendarUrl('jonas', 'work'), `${id}@booking-service`);
    const text = await waitFor("the event in Jonas's calendar", async () => {
      const r = await radicale.get('jonas', jonasHref);
      return r.status === 200 ? unfolded(r.text) : undefined;
    });
    assert.match(text, /^DTSTART:20261202T110000Z\r$/m);
    assert.match(text, new RegExp(`^X-BOOKING-ID:${moved.body.booking.id}\\r$`, 'm'));
    // the meeting's SEQUENCE goes on from Amara's copy (0), not from 0 again in Jonas's calendar
    assert.match(text, /^SEQUENCE:1\r$/m);
    await waitFor("the event to leave Amara's calendar", async () => (await radicale.get('amara', href(id))).status === 404);
  });

  it('a test-mode booking is written too, its SUMMARY marked [Test], and it never blocks a live booking', async () => {
    const id = await book(AMARA_TYPE, '2026-12-04T10:00:00Z', KEYS.secret);
    const text = unfolded(await eventWhen(id, () => true));
    assert.match(text, /^SUMMARY:\[Test\] Amara call with Ada Lovelace\r$/m);
    assert.match(text, new RegExp(`^X-BOOKING-ID:${id}\\r$`, 'm'));
    assert.equal((await syncNow(t, 'cal_amara_caldav')).status, 'SUCCESS');
    // the event is the service's own: the sync does not turn it into busy time for live mode
    const live = await book(AMARA_TYPE, '2026-12-04T10:00:00Z', KEYS.live);
    const liveText = unfolded(await eventWhen(live, () => true));
    assert.match(liveText, /^SUMMARY:Amara call with Ada Lovelace\r$/m);
  });

  it('a write that fails for good (after a retry with backoff) shows ERROR with a syncError naming the booking', async () => {
    const id = await book('et_priya_solo', '2026-12-02T16:00:00Z');
    const cal = await waitFor(
      'the calendar to show ERROR',
      async () => {
        const res = await t.request('GET', `/v1/calendars?userId=${MEMBERS.priya}`, { key: KEYS.secret });
        const c = res.body.calendars.find((x: { id: string }) => x.id === 'cal_priya_broken');
        // (its own sync failed already: the collection does not exist)
        return c?.syncStatus === 'ERROR' && c.syncError.includes(id) ? c : undefined;
      },
      20_000,
    );
    assert.match(cal.syncError, new RegExp(`booking ${id}`));
    assert.match(cal.syncError, /after 2 attempts/);
    assert.ok(!cal.syncError.includes('priya-pw'));
    // the booking itself is untouched
    const b = await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.live });
    assert.equal(b.body.booking.status, 'SCHEDULED');
  });

  it('once the server answers a sync again, a meeting whose write failed for good is written, and the ERROR clears', async () => {
    const failed = await t.db.pool.query(`select root_booking_id from calendar_write_failures where calendar_id = 'cal_priya_broken'`);
    assert.equal(failed.rows.length, 1);
    const id = failed.rows[0].root_booking_id as string;
    // the collection exists now: the server works again, nothing else changed
    await radicale.createCalendar('priya', 'missing');
    assert.equal((await syncNow(t, 'cal_priya_broken')).status, 'SUCCESS');
    const priyaHref = resourceUrl(radicale.calendarUrl('priya', 'missing'), `${id}@booking-service`);
    const text = await waitFor("the event in Priya's calendar", async () => {
      const r = await radicale.get('priya', priyaHref);
      return r.status === 200 ? unfolded(r.text) : undefined;
    });
    assert.match(text, new RegExp(`^X-BOOKING-ID:${id}\\r$`, 'm'));
    const cal = await waitFor('the calendar to leave ERROR', async () => {
      const res = await t.request('GET', `/v1/calendars?userId=${MEMBERS.priya}`, { key: KEYS.secret });
      const c = res.body.calendars.find((x: { id: string }) => x.id === 'cal_priya_broken');
      return c?.syncStatus === 'SUCCESS' ? c : undefined;
    });
    assert.equal(cal.syncError, null);
    const left = await t.db.pool.query(`select count(*)::int as n from calendar_write_failures`);
    assert.equal(left.rows[0].n, 0);
  });
});
