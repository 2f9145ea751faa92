import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { AMARA_TYPE, bookAmara, calendarSeed, routed, vevent, waitFor } from '../helpers/calendar-fixtures.ts';
import type { SeedJson } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';

// A seed file whose calendars no longer carry the `connection` they had (docs/calendars.md,
// Connecting). Tuesday 2026-12-01 06:00 UTC; Amara works Mon–Fri 09:00–17:00 Europe/London.
const NOW = new Date('2026-12-01T06:00:00Z');
const AMARA_PASSWORD = 'amara-Pa55-caldav';
const SECRET_KEY = randomBytes(32).toString('base64');
const AMARA_CAL = 'cal_amara_caldav';
// a connection whose password the server refuses: NEEDS_REAUTH, with a syncError, when dropped
const PRIYA_CAL = 'cal_priya_caldav';
const skip = skipWithoutRadicale();

let radicale: Radicale;
let t: TestApp;
let dir: string;

function seed(connected: boolean): SeedJson {
  const s = calendarSeed([
    { id: AMARA_CAL, url: radicale.calendarUrl('amara', 'work'), username: 'amara', password: AMARA_PASSWORD },
    { id: PRIYA_CAL, member: MEMBERS.priya, url: radicale.calendarUrl('priya', 'home'), username: 'priya', password: 'not-her-password' },
  ]);
  if (!connected) for (const c of s.organizations[0].calendars) delete c.connection;
  return s;
}

before(async () => {
  if (skip) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bs-cal-drop-'));
  radicale = await startRadicale({
    users: { amara: AMARA_PASSWORD, priya: 'priya-pw' },
    preload: {
      amara: {
        work: { displayName: 'Work', events: { 'dentist.ics': vevent('dentist-1', '2026-12-02T10:00:00Z', '2026-12-02T11:00:00Z') } },
      },
      priya: { home: { displayName: 'Home', events: {} } },
    },
  });
  t = await startApp({ now: NOW, seed: seed(true), worker: true, env: { WEBHOOK_SECRET_KEY: SECRET_KEY } });
});

after(async () => {
  await t?.close();
  await radicale?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface UserCalendar {
  id: string;
  provider: string;
  syncStatus: string;
  lastSyncAt: string | null;
  syncError: string | null;
}
const calendarOf = async (member: string, id: string): Promise<UserCalendar> => {
  const res = await t.request('GET', `/v1/calendars/${member}`, { key: KEYS.secret });
  assert.equal(res.status, 200, res.text);
  return res.body.calendars.find((c: { id: string }) => c.id === id);
};
const slots = async (date: string) => {
  const res = await t.request('GET', `/v1/availability?event_type_id=${AMARA_TYPE}&start_date=${date}&end_date=${date}`, {
    key: KEYS.live,
  });
  assert.equal(res.status, 200, res.text);
  return res.body.slots.map((s: { start: string }) => s.start.slice(11, 16)) as string[];
};
const book = (time: string) => bookAmara(t, time);
const events = async () => (await radicale.list('amara', 'work')).sort();
const jobs = async (task: string) =>
  (await t.db.pool.query(`select key from graphile_worker.jobs where task_identifier = $1`, [task])).rows;
const noJobs = (task: string) => waitFor(`the ${task} jobs to finish`, async () => (await jobs(task)).length === 0, 10_000);
const count = async (table: string) =>
  (await t.db.pool.query(`select count(*)::int as n from ${table} where calendar_id = any($1)`, [[AMARA_CAL, PRIYA_CAL]])).rows[0]
    .n as number;

describe('a seed file that drops a calendar connection', { skip }, () => {
  let written: string;

  it('(while connected: busy time read, a booking written, a refused password NEEDS_REAUTH)', async () => {
    await waitFor('the first syncs', async () => {
      const [a, p] = [await calendarOf(MEMBERS.amara, AMARA_CAL), await calendarOf(MEMBERS.priya, PRIYA_CAL)];
      return a.syncStatus === 'SUCCESS' && p.syncStatus === 'NEEDS_REAUTH';
    });
    assert.match((await calendarOf(MEMBERS.priya, PRIYA_CAL)).syncError!, /401/);
    assert.ok(!(await slots('2026-12-02')).includes('10:00'));
    written = await book('2026-12-03T14:00:00Z');
    await waitFor('the write-back', async () => (await events()).includes(`${written}@booking-service.ics`));
    await noJobs('write-calendar-event');
  });

  it('forgets the stored credentials and what was read; the file speaks for the status again, without a syncError', async () => {
    const file = path.join(dir, 'seed.json');
    fs.writeFileSync(file, JSON.stringify(seed(false)));
    const r = await runCli(['seed', file], { DATABASE_URL: t.db.url, WEBHOOK_SECRET_KEY: SECRET_KEY });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /seeded 2 organizations from .*: [1-9]\d* rows? changed/);

    assert.equal(await count('calendar_connections'), 0);
    assert.equal(await count('calendar_resources'), 0);
    assert.equal(await count('calendar_busy'), 0);
    // the integrations stay, as metadata: status and last sync as the file has them (none: PENDING, never)
    for (const [member, id] of [
      [MEMBERS.amara, AMARA_CAL],
      [MEMBERS.priya, PRIYA_CAL],
    ]) {
      const c = await calendarOf(member, id);
      assert.equal(c.provider, 'CALDAV');
      assert.equal(c.syncStatus, 'PENDING', id);
      assert.equal(c.lastSyncAt, null, id);
      assert.equal(c.syncError, null, id);
    }
  });

  it('its busy time no longer blocks the host, at once (availability and create)', async () => {
    const free = await slots('2026-12-02');
    assert.ok(free.includes('10:00') && free.includes('10:30'), free.join(' '));
    const id = await book('2026-12-02T10:00:00Z');
    await routed(t, id);
    // and the booking is not written to the calendar: nothing is queued for it
    assert.equal((await jobs('write-calendar-event')).length, 0);
    assert.ok(!(await events()).includes(`${id}@booking-service.ics`));
  });

  it('no sync runs any more: the periodic one that was queued ends without a trace and without a successor', async () => {
    const queued = await jobs('sync-calendar');
    assert.deepEqual(
      queued.map((j) => j.key),
      [`calendar-sync:${AMARA_CAL}`],
    );
    // its time comes
    await t.db.pool.query(
      `select graphile_worker.reschedule_jobs(array(select id from graphile_worker.jobs where key = $1), run_at => now())`,
      [`calendar-sync:${AMARA_CAL}`],
    );
    // it finds no connection: it reads nothing and queues no next sync
    await noJobs('sync-calendar');
    const c = await calendarOf(MEMBERS.amara, AMARA_CAL);
    assert.equal(c.syncStatus, 'PENDING');
    assert.equal(c.lastSyncAt, null);
    assert.equal(await count('calendar_busy'), 0);
  });

  it('an event written before stays in the calendar, out of reach: a cancel forgets it and leaves it there', async () => {
    const res = await t.request('DELETE', `/v1/bookings/${written}`, { key: KEYS.live, body: { reason: 'no longer needed' } });
    assert.equal(res.status, 200, res.text);
    await noJobs('write-calendar-event');
    assert.equal(await count('calendar_event_writes'), 0);
    assert.ok((await events()).includes(`${written}@booking-service.ics`));
  });
});
