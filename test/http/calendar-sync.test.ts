import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { Redis } from 'ioredis';
import { MemoryFreeBusyCache, RedisFreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import { routeBooking } from '../../src/domain/bookings/route.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { AMARA_TYPE, allDayEvent, calendarSeed, syncNow, vevent, waitFor } from '../helpers/calendar-fixtures.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { TEST_REDIS_URL, skipWithoutRedis } from '../helpers/redis.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';

// Tuesday 2026-12-01 06:00 UTC; Amara works Mon–Fri 09:00–17:00 Europe/London (UTC+0 in December).
const NOW = new Date('2026-12-01T06:00:00Z');
const PASSWORD = 'amara-Pa55-caldav';
const skip = skipWithoutRadicale();
const redisSkip = await skipWithoutRedis();

let radicale: Radicale;
let hang: net.Server;
let t: TestApp;

before(async () => {
  if (skip) return;
  radicale = await startRadicale({ users: { amara: PASSWORD, priya: 'priya-pw' } });
  await radicale.createCalendar('amara', 'work', 'Work');
  await radicale.createCalendar('priya', 'home', 'Home');
  // accepts connections and never answers
  hang = net.createServer(() => {});
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  const hangPort = (hang.address() as net.AddressInfo).port;
  t = await startApp({
    now: NOW,
    env: { CALENDAR_REQUEST_TIMEOUT_MS: '1500' },
    seed: calendarSeed([
      { id: 'cal_amara_caldav', url: radicale.calendarUrl('amara', 'work'), username: 'amara', password: PASSWORD },
      {
        id: 'cal_priya_wrong',
        member: MEMBERS.priya,
        url: radicale.calendarUrl('priya', 'home'),
        username: 'priya',
        password: 'not-her-password',
      },
      { id: 'cal_jonas_hang', member: MEMBERS.jonas, url: `http://127.0.0.1:${hangPort}/jonas/cal/`, username: 'jonas', password: 'pw' },
    ]),
  });
});

after(async () => {
  await t?.close();
  await radicale?.stop();
  hang?.close();
});

const calendar = async (id: string) => {
  const res = await t.request('GET', '/v1/calendars?limit=100', { key: KEYS.secret });
  assert.equal(res.status, 200);
  return res.body.calendars.find((c: { id: string }) => c.id === id);
};
const availability = async (date: string, key: string = KEYS.secret) => {
  const res = await t.request(
    'GET',
    `/v1/availability?event_type_id=${AMARA_TYPE}&start_date=${date}&end_date=${date}&timezone=Europe/London`,
    { key },
  );
  assert.equal(res.status, 200, res.text);
  return res.body.slots.map((s: { start: string }) => s.start.slice(11, 16));
};
/** calendar_syncs_total{status} as GET /metrics shows it. */
const syncsCounted = async (status: string) => {
  const res = await fetch(`${t.url}/metrics`);
  const text = await res.text();
  assert.equal(res.status, 200);
  const m = new RegExp(`^calendar_syncs_total\\{status="${status}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
};
const book = (time: string, key: string = KEYS.secret) =>
  t.request('POST', '/v1/bookings', {
    key,
    body: {
      event_type_id: AMARA_TYPE,
      requested_time: time,
      attendee: { name: 'Ada Lovelace', email: 'ada@example.com', timezone: 'Europe/London' },
    },
  });

describe('calendar sync against Radicale', { skip }, () => {
  it('a seeded connection is PENDING with syncError null; neither password nor username is ever shown', async () => {
    const c = await calendar('cal_amara_caldav');
    assert.equal(c.provider, 'CALDAV');
    assert.equal(c.syncStatus, 'PENDING');
    assert.equal(c.syncError, null);
    assert.equal(c.lastSyncAt, null);
    const all = await t.request('GET', '/v1/calendars?limit=100', { key: KEYS.secret });
    assert.ok(!all.text.includes(PASSWORD) && !all.text.includes('not-her-password'));
    const mine = await t.request('GET', `/v1/calendars/${MEMBERS.amara}`, { key: KEYS.secret });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.calendars.find((x: { id: string }) => x.id === 'cal_amara_caldav').syncError, null);
    const stored = await t.db.pool.query('select password_encrypted from calendar_connections');
    for (const r of stored.rows) assert.ok(!r.password_encrypted.includes(PASSWORD) && r.password_encrypted.startsWith('v1.'));
  });

  it('a calendar that never synced adds no busy time', async () => {
    await radicale.putEvent('amara', 'work', 'dentist.ics', vevent('dentist-1', '2026-12-02T10:00:00Z', '2026-12-02T11:00:00Z'));
    assert.ok((await availability('2026-12-02')).includes('10:00'));
  });

  it('a sync in another process makes the event busy in availability, create, free/busy and available members at once', async () => {
    // an all-day event on Thursday (DATE, in Amara's zone)
    await radicale.putEvent('amara', 'work', 'offsite.ics', allDayEvent('offsite-1', '20261203', '20261204'));
    // warm this process's caches first: the sync must drop them
    assert.ok((await availability('2026-12-02')).includes('10:00'));
    const fbUrl = `/v1/freebusy/${MEMBERS.amara}?start=2026-12-02T10:00:00Z&end=2026-12-02T11:00:00Z&time_slot=30`;
    assert.equal((await t.request('GET', fbUrl)).body.slots[0].status, 'free');

    const r = await syncNow(t, 'cal_amara_caldav', new MemoryFreeBusyCache());
    const synced = Date.now();
    assert.equal(r.status, 'SUCCESS', r.error ?? '');
    assert.equal(r.events, 2);
    assert.equal(r.skipped, 0);
    assert.ok(r.changed);
    // this process hears of it by NOTIFY, delivered at the sync's commit: milliseconds, not the cache's 60 s
    await waitFor('the cached answer to be dropped', async () => !(await availability('2026-12-02')).includes('10:00'), 1000);
    assert.ok(Date.now() - synced < 1000);

    const c = await calendar('cal_amara_caldav');
    assert.equal(c.syncStatus, 'SUCCESS');
    assert.equal(c.lastSyncAt, NOW.toISOString());
    assert.equal(c.syncError, null);

    const slots = await availability('2026-12-02');
    assert.ok(!slots.includes('10:00') && !slots.includes('10:30'), slots.join(' '));
    assert.ok(slots.includes('09:30') && slots.includes('11:00'));
    assert.deepEqual(await availability('2026-12-03'), []);
    // live keys see it too: calendars are shared configuration
    assert.ok(!(await availability('2026-12-02', KEYS.live)).includes('10:00'));

    const refused = await book('2026-12-02T10:30:00Z');
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.type, 'conflict_error');
    assert.match(refused.body.error.message, /not an available slot|not available/);

    const fb = await t.request('GET', fbUrl);
    assert.deepEqual(
      fb.body.slots.map((s: { status: string; reason?: string }) => `${s.status} ${s.reason}`),
      ['busy calendar', 'busy calendar'],
    );

    const avail = await t.request('GET', '/v1/team/members/available?date=2026-12-03', { key: KEYS.secret });
    assert.equal(avail.status, 200);
    const amara = avail.body.members.find((m: { id: string }) => m.id === MEMBERS.amara);
    assert.equal(amara.availability.is_available, false);
    assert.equal(amara.availability.next_available_slot, '2026-12-04T09:00:00.000Z');
  });

  it('reschedule onto a busy event is 409; onto a free slot it works', async () => {
    const ok = await book('2026-12-02T14:00:00Z');
    assert.equal(ok.status, 201, ok.text);
    const id = ok.body.booking.id;
    assert.equal(await routeBooking({ db: t.db.pool, now: () => NOW, log: pino({ level: 'silent' }) }, id), 'routed');
    const busy = await t.request('POST', `/v1/bookings/${id}/reschedule`, {
      key: KEYS.secret,
      body: { start_time: '2026-12-02T10:00:00Z' },
    });
    assert.equal(busy.status, 409, busy.text);
    assert.match(busy.body.error.message, /not an available slot/);
    const free = await t.request('POST', `/v1/bookings/${id}/reschedule`, {
      key: KEYS.secret,
      body: { start_time: '2026-12-02T15:00:00Z' },
    });
    assert.equal(free.status, 200, free.text);
  });

  it('an unchanged calendar costs one request; a deleted event frees its time at the next sync', async () => {
    const same = await syncNow(t, 'cal_amara_caldav');
    assert.equal(same.status, 'SUCCESS');
    assert.equal(same.requests, 1);
    assert.equal(same.changed, false);

    assert.equal(await radicale.deleteEvent('amara', 'work', 'offsite.ics'), 200);
    const next = await syncNow(t, 'cal_amara_caldav');
    assert.equal(next.status, 'SUCCESS');
    assert.ok(next.changed);
    assert.equal(next.events, 1);
    assert.ok((await availability('2026-12-03')).includes('09:00'));
    assert.ok(!(await availability('2026-12-02')).includes('10:00'));
  });

  it('transparent and cancelled events are free; tentative ones are busy', async () => {
    await radicale.putEvent(
      'amara',
      'work',
      'transparent.ics',
      vevent('tr-1', '2026-12-04T09:00:00Z', '2026-12-04T10:00:00Z', ['TRANSP:TRANSPARENT']),
    );
    await radicale.putEvent(
      'amara',
      'work',
      'cancelled.ics',
      vevent('cx-1', '2026-12-04T11:00:00Z', '2026-12-04T12:00:00Z', ['STATUS:CANCELLED']),
    );
    await radicale.putEvent(
      'amara',
      'work',
      'tentative.ics',
      vevent('tt-1', '2026-12-04T13:00:00Z', '2026-12-04T14:00:00Z', ['STATUS:TENTATIVE']),
    );
    assert.equal((await syncNow(t, 'cal_amara_caldav')).status, 'SUCCESS');
    const slots = await availability('2026-12-04');
    assert.ok(slots.includes('09:00') && slots.includes('11:00'));
    assert.ok(!slots.includes('13:00') && !slots.includes('13:30'));
  });

  it("the host's copy of a meeting's invitation is the service's own event; another installation's is a meeting, X-BOOKING-ID or not", async () => {
    const made = await book('2026-12-07T10:00:00Z');
    assert.equal(made.status, 201, made.text);
    const id = made.body.booking.id;
    assert.equal(await routeBooking({ db: t.db.pool, now: () => NOW, log: pino({ level: 'silent' }) }, id), 'routed');
    // the invitation the host was emailed, added to the calendar by their client: the meeting's
    // UID and time, no X-BOOKING-ID
    await radicale.putEvent('amara', 'work', 'invite.ics', vevent(`${id}@booking-service`, '2026-12-07T10:00:00Z', '2026-12-07T10:30:00Z'));
    // the write-back of another installation of the service (or of another organization here),
    // X-BOOKING-ID and all: a booking this organization never made
    const foreign = 'bkg_0123456789abcdef01234567@booking-service';
    await radicale.putEvent(
      'amara',
      'work',
      'foreign.ics',
      vevent(foreign, '2026-12-07T14:00:00Z', '2026-12-07T15:00:00Z', ['X-BOOKING-ID:bkg_0123456789abcdef01234567']),
    );
    // another tool that names its own ids the same way
    await radicale.putEvent(
      'amara',
      'work',
      'crm.ics',
      vevent('crm-88231', '2026-12-07T15:00:00Z', '2026-12-07T15:30:00Z', ['X-BOOKING-ID:88231']),
    );
    assert.equal((await syncNow(t, 'cal_amara_caldav')).status, 'SUCCESS');
    const blocks = await t.db.pool.query(
      `select start_time from calendar_busy where calendar_id = 'cal_amara_caldav' and start_time::date = '2026-12-07' order by start_time`,
    );
    assert.deepEqual(
      blocks.rows.map((r) => r.start_time.toISOString()),
      ['2026-12-07T14:00:00.000Z', '2026-12-07T15:00:00.000Z'],
    );
    const open = await availability('2026-12-07');
    assert.ok(!open.includes('14:00') && !open.includes('15:00'), open.join(' '));
    // cancelled, while the host's client kept its copy: the time is free again
    const cancel = await t.request('DELETE', `/v1/bookings/${id}`, { key: KEYS.secret });
    assert.equal(cancel.status, 200, cancel.text);
    assert.ok((await availability('2026-12-07')).includes('10:00'));
    assert.equal(await radicale.deleteEvent('amara', 'work', 'invite.ics'), 200);
    assert.equal(await radicale.deleteEvent('amara', 'work', 'foreign.ics'), 200);
    assert.equal(await radicale.deleteEvent('amara', 'work', 'crm.ics'), 200);
    assert.equal((await syncNow(t, 'cal_amara_caldav')).status, 'SUCCESS');
    const freed = await availability('2026-12-07');
    assert.ok(freed.includes('14:00') && freed.includes('15:00'), freed.join(' '));
  });

  it('a new day moves the window: the stored events are expanded again without reading them again', async () => {
    await radicale.putEvent(
      'amara',
      'work',
      'standup.ics',
      vevent('standup-1', '2026-12-01T08:00:00Z', '2026-12-01T08:15:00Z', ['RRULE:FREQ=DAILY']),
    );
    assert.equal((await syncNow(t, 'cal_amara_caldav')).status, 'SUCCESS');
    const last = async () =>
      (
        await t.db.pool.query(
          `select max(end_time) as e, min(start_time) as s from calendar_busy where calendar_id = 'cal_amara_caldav' and href like '%/standup.ics'`,
        )
      ).rows[0];
    const before = await last();
    // the window: start of yesterday (UTC) to the end of today + 180 days
    assert.equal(before.s.toISOString(), '2026-12-01T08:00:00.000Z');
    assert.equal(before.e.toISOString(), '2027-05-30T08:15:00.000Z');
    const saved = t.clock.now;
    t.clock.now = new Date(NOW.getTime() + 86_400_000);
    try {
      const r = await syncNow(t, 'cal_amara_caldav');
      assert.equal(r.status, 'SUCCESS');
      assert.equal(r.requests, 1);
      assert.ok(r.changed);
      const moved = await last();
      assert.equal(moved.e.toISOString(), '2027-05-31T08:15:00.000Z');
    } finally {
      t.clock.now = saved;
      assert.equal((await syncNow(t, 'cal_amara_caldav')).status, 'SUCCESS');
    }
    assert.equal(await radicale.deleteEvent('amara', 'work', 'standup.ics'), 200);
    assert.equal((await syncNow(t, 'cal_amara_caldav')).status, 'SUCCESS');
  });

  it('with Redis, a sync in a worker drops the answers every API process shares', { skip: redisSkip }, async () => {
    const redis = new Redis(TEST_REDIS_URL);
    const prefix = `booking-service:test:${Date.now()}`;
    try {
      const api = new RedisFreeBusyCache(redis, prefix);
      const worker = new RedisFreeBusyCache(redis, prefix);
      await api.set(MEMBERS.amara, 'some-answer', 'cached');
      assert.equal(await api.get(MEMBERS.amara, 'some-answer'), 'cached');
      await radicale.putEvent('amara', 'work', 'redis.ics', vevent('redis-1', '2026-12-08T09:00:00Z', '2026-12-08T10:00:00Z'));
      const r = await syncNow(t, 'cal_amara_caldav', worker);
      assert.ok(r.changed);
      assert.equal(await api.get(MEMBERS.amara, 'some-answer'), undefined);
    } finally {
      redis.disconnect();
    }
  });

  it('one unparseable event among good ones is skipped and counted; the others still count', async () => {
    // Radicale checks what it is given, so the bad event is one it accepts and we cannot read:
    // a time zone that exists nowhere, without a VTIMEZONE
    await radicale.putEvent(
      'amara',
      'work',
      'mars.ics',
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//Test//EN',
        'BEGIN:VEVENT',
        'UID:mars-1',
        'DTSTAMP:20261101T000000Z',
        'DTSTART;TZID=Mars/Olympus_Mons:20261207T100000',
        'DTEND;TZID=Mars/Olympus_Mons:20261207T110000',
        'SUMMARY:Rover',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n'),
    );
    await radicale.putEvent('amara', 'work', 'good.ics', vevent('good-1', '2026-12-07T12:00:00Z', '2026-12-07T13:00:00Z'));
    const r = await syncNow(t, 'cal_amara_caldav');
    assert.equal(r.status, 'SUCCESS', r.error ?? '');
    assert.equal(r.skipped, 1);
    const slots = await availability('2026-12-07');
    assert.ok(!slots.includes('12:00') && slots.includes('10:00'), slots.join(' '));
  });

  it('401 makes the calendar NEEDS_REAUTH without credentials in syncError; syncing stops until the connection is given again', async () => {
    const [reauth, success] = [await syncsCounted('NEEDS_REAUTH'), await syncsCounted('SUCCESS')];
    const r = await syncNow(t, 'cal_priya_wrong');
    assert.equal(r.status, 'NEEDS_REAUTH');
    const c = await calendar('cal_priya_wrong');
    assert.equal(c.syncStatus, 'NEEDS_REAUTH');
    assert.match(c.syncError, /401/);
    assert.ok(!c.syncError.includes('not-her-password'));
    assert.equal((await syncNow(t, 'cal_priya_wrong')).status, 'SKIPPED');
    // calendar_syncs_total counts the syncs that ran, by outcome; a skipped one is not one
    assert.equal(await syncsCounted('NEEDS_REAUTH'), reauth + 1);
    assert.equal(await syncsCounted('SKIPPED'), 0);
    // the seed file gives the right password: PENDING again, and the sync succeeds
    const seed = calendarSeed([
      { id: 'cal_amara_caldav', url: radicale.calendarUrl('amara', 'work'), username: 'amara', password: PASSWORD },
      { id: 'cal_priya_wrong', member: MEMBERS.priya, url: radicale.calendarUrl('priya', 'home'), username: 'priya', password: 'priya-pw' },
    ]);
    const { loadSeed } = await import('../../src/domain/seed/load.ts');
    const { validateSeed } = await import('../../src/domain/seed/validate.ts');
    await loadSeed(t.db.pool, validateSeed(seed), { secretKey: t.config.webhookSecretKey });
    assert.equal((await calendar('cal_priya_wrong')).syncStatus, 'PENDING');
    assert.equal((await syncNow(t, 'cal_priya_wrong')).status, 'SUCCESS');
    assert.equal(await syncsCounted('SUCCESS'), success + 1);
    // and seeding the same file again changes nothing, the status included
    const again = await loadSeed(t.db.pool, validateSeed(seed), { secretKey: t.config.webhookSecretKey });
    assert.equal(again.changes, 0);
    assert.equal((await calendar('cal_priya_wrong')).syncStatus, 'SUCCESS');
  });

  it('a server that accepts and never answers: SYNCING while the API answers at once, then ERROR at the request timeout', async () => {
    const started = Date.now();
    const running = syncNow(t, 'cal_jonas_hang');
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    const c = await calendar('cal_jonas_hang');
    assert.equal(c.syncStatus, 'SYNCING');
    const res = await t.request('GET', `/v1/availability?event_type_id=et_intro_call&start_date=2026-12-02&end_date=2026-12-02`, {
      key: KEYS.secret,
    });
    assert.equal(res.status, 200);
    assert.ok(Date.now() - t0 < 1000, `the API took ${Date.now() - t0} ms`);
    const r = await running;
    assert.equal(r.status, 'ERROR');
    assert.match(r.error!, /no answer within 1\.5 s/);
    assert.ok(Date.now() - started >= 1400 && Date.now() - started < 5000);
    const after = await calendar('cal_jonas_hang');
    assert.equal(after.syncStatus, 'ERROR');
    assert.equal(after.lastSyncAt, null);
    assert.match(after.syncError, /no answer/);
  });

  it('an unreachable server: ERROR, and the busy time of the last success stays in force', async () => {
    const before = await calendar('cal_amara_caldav');
    await radicale.stop();
    const r = await syncNow(t, 'cal_amara_caldav');
    assert.equal(r.status, 'ERROR');
    const c = await calendar('cal_amara_caldav');
    assert.equal(c.syncStatus, 'ERROR');
    assert.match(c.syncError, /ECONNREFUSED/);
    assert.equal(c.lastSyncAt, before.lastSyncAt);
    const slots = await availability('2026-12-02');
    assert.ok(!slots.includes('10:00') && slots.includes('09:00'));
  });
});
