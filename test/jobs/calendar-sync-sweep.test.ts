import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { enqueue } from '../../src/db/jobs.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { AMARA_TYPE, calendarSeed, vevent, waitFor } from '../helpers/calendar-fixtures.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';
import type { TcpProxy } from '../helpers/tcp-proxy.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

// The overdue sweep (schedule-calendar-syncs, every minute; docs/calendars.md, Syncing): a
// connected calendar with no sync attempt for twice CALENDAR_SYNC_INTERVAL plus a minute (a
// periodic job lost to a crash) gets a sync again. The sweep runs here as the worker runs it, a
// job of its task, which the test enqueues rather than wait for the minute. Times: the injected
// clock (lastSyncAt, the next sync's run_at) is December 2026; the database's now() (last
// attempts) is real time.
const NOW = new Date('2026-12-01T06:00:00Z');
const INTERVAL = 300;
const AMARA_CAL = 'cal_amara_caldav';
const PRIYA_CAL = 'cal_priya_caldav';
const skip = skipWithoutRadicale();

let radicale: Radicale;
// Amara's server is reached through a proxy that can stop answering (a sync that hangs)
let proxy: TcpProxy;
let t: TestApp;
const logged: { msg?: string; calendarId?: string; status?: string }[] = [];

before(async () => {
  if (skip) return;
  radicale = await startRadicale({
    users: { amara: 'amara-pw', priya: 'priya-pw' },
    preload: { amara: { work: { displayName: 'Work', events: {} } }, priya: { home: { displayName: 'Home', events: {} } } },
  });
  proxy = await startTcpProxy({ host: '127.0.0.1', port: radicale.port });
  // the worker's log says what each sync job did (debug: 'calendar sync', with its outcome)
  const log = pino({ level: 'debug' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  t = await startApp({
    now: NOW,
    worker: true,
    log,
    env: { CALENDAR_SYNC_INTERVAL: String(INTERVAL), CALENDAR_REQUEST_TIMEOUT_MS: '2000' },
    seed: calendarSeed([
      { id: AMARA_CAL, url: `http://127.0.0.1:${proxy.port}/amara/work/`, username: 'amara', password: 'amara-pw' },
      { id: PRIYA_CAL, member: MEMBERS.priya, url: radicale.calendarUrl('priya', 'home'), username: 'priya', password: 'priya-pw' },
    ]),
  });
});

after(async () => {
  await t?.close();
  await proxy?.stop();
  await radicale?.stop();
});

const q = async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => (await t.db.pool.query<T>(sql, params)).rows;
const calendarOf = async (member: string, id: string) => {
  const res = await t.request('GET', `/v1/calendars/${member}`, { key: KEYS.secret });
  assert.equal(res.status, 200, res.text);
  return res.body.calendars.find((c: { id: string }) => c.id === id) as { syncStatus: string; lastSyncAt: string | null };
};
const lastAttempt = async (id: string) =>
  (await q<{ at: Date }>('select last_attempt_at as at from calendar_connections where calendar_id = $1', [id]))[0].at;
/** No attempt for `minutes` (the database's clock, as the sweep reads it). */
const lastAttemptAgo = (id: string, minutes: number) =>
  q(`update calendar_connections set last_attempt_at = now() - make_interval(mins => $2) where calendar_id = $1`, [id, minutes]);
const syncJobs = (id: string) =>
  q<{ id: string; key: string | null; run_at: Date; locked: boolean }>(
    `select j.id, j.key, j.run_at, j.locked_at is not null as locked from graphile_worker.jobs j
       join graphile_worker._private_jobs p on p.id = j.id
      where j.task_identifier = 'sync-calendar' and p.payload ->> 'calendarId' = $1`,
    [id],
  );
/**
 * The calendar's one queued sync once no sync job of it is running (a job that ends queues the
 * next before it is deleted); undefined while one runs. Fails when two are queued.
 */
const nextQueued = async (id: string) => {
  const jobs = await syncJobs(id);
  if (jobs.length === 0 || jobs.some((j) => j.locked)) return undefined;
  assert.equal(jobs.length, 1, `one sync queued for ${id}`);
  assert.equal(jobs[0].key, `calendar-sync:${id}`);
  return jobs[0];
};
/** A periodic job lost (a crash past its attempts): the calendar has no sync queued at all. */
const loseSyncJob = async (id: string) => {
  await q('select graphile_worker.remove_job($1)', [`calendar-sync:${id}`]);
  assert.deepEqual(await syncJobs(id), []);
};
/** One sweep, run by the worker; resolves when it has finished. */
const sweep = async () => {
  await enqueue(t.db.pool, 'schedule-calendar-syncs', {});
  await waitFor(
    'the sweep',
    async () => (await q(`select 1 from graphile_worker.jobs where task_identifier = 'schedule-calendar-syncs'`)).length === 0,
  );
};
const busyBlocks = async (id: string) =>
  (await q<{ n: number }>('select count(*)::int as n from calendar_busy where calendar_id = $1', [id]))[0].n;
const syncsLogged = (id: string, from = 0) => logged.slice(from).filter((l) => l.msg === 'calendar sync' && l.calendarId === id);

describe('the overdue calendar sweep (schedule-calendar-syncs)', { skip }, () => {
  it('syncs a calendar whose periodic sync was lost (lastSyncAt advances, busy time appears); one not yet due is left alone', async () => {
    await waitFor('the first syncs', async () => {
      const both = [await calendarOf(MEMBERS.amara, AMARA_CAL), await calendarOf(MEMBERS.priya, PRIYA_CAL)];
      return both.every((c) => c.syncStatus === 'SUCCESS' && c.lastSyncAt === NOW.toISOString());
    });
    // each first sync's job has ended, having queued the next one CALENDAR_SYNC_INTERVAL later
    await waitFor('the next periodic syncs to be queued', async () => (await nextQueued(AMARA_CAL)) && (await nextQueued(PRIYA_CAL)));
    assert.equal((await nextQueued(AMARA_CAL))!.run_at.getTime(), NOW.getTime() + INTERVAL * 1000);
    await radicale.putEvent('amara', 'work', 'dentist.ics', vevent('dentist-1', '2026-12-02T10:00:00Z', '2026-12-02T11:00:00Z'));
    await radicale.putEvent('priya', 'home', 'gym.ics', vevent('gym-1', '2026-12-02T12:00:00Z', '2026-12-02T13:00:00Z'));
    const later = new Date(NOW.getTime() + 20 * 60_000);
    t.clock.now = later;
    await loseSyncJob(AMARA_CAL);
    await loseSyncJob(PRIYA_CAL);
    // Amara: no attempt for 15 min, past twice the interval and a minute (11 min). Priya: 9 min, not yet.
    // (From here the worker's own per-minute sweep may come first: it does the same.)
    await lastAttemptAgo(AMARA_CAL, 15);
    await lastAttemptAgo(PRIYA_CAL, 9);
    const priyaAttempt = await lastAttempt(PRIYA_CAL);

    await sweep();
    const amara = await waitFor('the sweep-enqueued sync', async () => {
      const c = await calendarOf(MEMBERS.amara, AMARA_CAL);
      return c.lastSyncAt === later.toISOString() ? c : undefined;
    });
    assert.equal(amara.syncStatus, 'SUCCESS');
    assert.equal(await busyBlocks(AMARA_CAL), 1);
    const res = await t.request(
      'GET',
      `/v1/availability?event_type_id=${AMARA_TYPE}&start_date=2026-12-02&end_date=2026-12-02&timezone=Europe/London`,
      { key: KEYS.secret },
    );
    assert.equal(res.status, 200, res.text);
    const slots = res.body.slots.map((s: { start: string }) => s.start.slice(11, 16));
    assert.ok(!slots.includes('10:00') && !slots.includes('10:30') && slots.includes('11:00'), slots.join(' '));
    // and its periodic chain runs again: one sync queued, CALENDAR_SYNC_INTERVAL after this one
    const next = await waitFor('the next periodic sync', () => nextQueued(AMARA_CAL));
    assert.equal(next.run_at.toISOString(), new Date(later.getTime() + INTERVAL * 1000).toISOString());

    // Priya's calendar was not synced: nothing queued, no attempt, her new event unread
    assert.deepEqual(await syncJobs(PRIYA_CAL), []);
    assert.equal((await lastAttempt(PRIYA_CAL)).getTime(), priyaAttempt.getTime());
    assert.equal((await calendarOf(MEMBERS.priya, PRIYA_CAL)).lastSyncAt, NOW.toISOString());
    assert.equal(await busyBlocks(PRIYA_CAL), 0);
  });

  it('a sweep leaves a queued sync where it is: it only fills gaps', async () => {
    const queued = (await nextQueued(AMARA_CAL))!;
    const from = logged.length;
    await lastAttemptAgo(AMARA_CAL, 15);
    await sweep();
    const after = (await nextQueued(AMARA_CAL))!;
    assert.equal(after.id, queued.id);
    assert.equal(after.run_at.getTime(), queued.run_at.getTime());
    assert.deepEqual(syncsLogged(AMARA_CAL, from), []);
  });

  it('two sweeps never run two syncs of one calendar at once', async () => {
    const from = logged.length;
    await loseSyncJob(AMARA_CAL);
    await lastAttemptAgo(AMARA_CAL, 15);
    // the server stops answering: the sweep's sync hangs until its request deadline (2 s)
    proxy.pause(true);
    try {
      await sweep();
      await waitFor('the sync to hang', async () => (await calendarOf(MEMBERS.amara, AMARA_CAL)).syncStatus === 'SYNCING');
      const claimed = await lastAttempt(AMARA_CAL);
      const [running] = await syncJobs(AMARA_CAL);
      assert.ok(running.locked);

      // a second sweep meanwhile: the running sync's attempt is recent, nothing is queued (or run)
      const beforeSecond = logged.length;
      await sweep();
      assert.deepEqual(syncsLogged(AMARA_CAL, beforeSecond), []);
      assert.deepEqual(
        (await syncJobs(AMARA_CAL)).map((j) => j.id),
        [running.id],
      );
      assert.equal((await lastAttempt(AMARA_CAL)).getTime(), claimed.getTime());

      // a sync running past twice the interval: the next sweep queues another, which finds the
      // calendar held and does nothing (no claim, no request, no successor)
      await lastAttemptAgo(AMARA_CAL, 15);
      const stale = await lastAttempt(AMARA_CAL);
      await sweep();
      await waitFor('the second sync job to give up', async () => syncsLogged(AMARA_CAL, from).some((l) => l.status === 'SKIPPED'));
      await waitFor('the second sync job to end', async () => (await syncJobs(AMARA_CAL)).length === 1);
      assert.equal((await syncJobs(AMARA_CAL))[0].id, running.id);
      assert.equal((await lastAttempt(AMARA_CAL)).getTime(), stale.getTime());
      assert.equal((await calendarOf(MEMBERS.amara, AMARA_CAL)).syncStatus, 'SYNCING');
    } finally {
      proxy.pause(false);
    }
    // the one sync ends at its deadline; the calendar then has one periodic sync queued, not two
    await waitFor('the hung sync to end', async () => (await calendarOf(MEMBERS.amara, AMARA_CAL)).syncStatus === 'ERROR', 10_000);
    const queued = await waitFor('the next periodic sync', () => nextQueued(AMARA_CAL));
    assert.equal(queued.run_at.toISOString(), new Date(t.clock.now.getTime() + INTERVAL * 1000).toISOString());
    // of the sync jobs that ran (the cron's own sweeps may have queued more), one reached the server
    assert.deepEqual(
      syncsLogged(AMARA_CAL, from)
        .map((l) => l.status)
        .filter((s) => s !== 'SKIPPED'),
      ['ERROR'],
    );
  });
});
