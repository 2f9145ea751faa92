import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { AMARA_TYPE, bookAmara, calendarSeed, routed, syncNow, vevent, waitFor } from '../helpers/calendar-fixtures.ts';
import { runCli } from '../helpers/cli.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';

// A host changes their CalDAV password: the next write-back gets 401 (docs/calendars.md, Status
// and Write-back). Tuesday 2026-12-01 06:00 UTC; Amara works Mon–Fri 09:00–17:00 Europe/London.
const NOW = new Date('2026-12-01T06:00:00Z');
const OLD_PASSWORD = 'amara-old-Pa55';
const NEW_PASSWORD = 'amara-new-Pa55';
// the same key in this process and in the CLI: the CLI encrypts the password the worker decrypts
const SECRET_KEY = randomBytes(32).toString('base64');
const CAL = 'cal_amara_caldav';
const skip = skipWithoutRadicale();

let radicale: Radicale;
let t: TestApp;
let dir: string;

const seedWith = (password: string) => calendarSeed([{ id: CAL, url: radicale.calendarUrl('amara', 'work'), username: 'amara', password }]);

before(async () => {
  if (skip) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bs-cal-reauth-'));
  radicale = await startRadicale({
    users: { amara: OLD_PASSWORD },
    preload: {
      amara: {
        work: { displayName: 'Work', events: { 'dentist.ics': vevent('dentist-1', '2026-12-02T10:00:00Z', '2026-12-02T11:00:00Z') } },
      },
    },
  });
  t = await startApp({ now: NOW, seed: seedWith(OLD_PASSWORD), worker: true, env: { WEBHOOK_SECRET_KEY: SECRET_KEY } });
});

after(async () => {
  await t?.close();
  await radicale?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Amara's calendar as GET /v1/calendars/{userId} shows it. */
const calendar = async () => {
  const res = await t.request('GET', `/v1/calendars/${MEMBERS.amara}`, { key: KEYS.secret });
  assert.equal(res.status, 200, res.text);
  return res.body.calendars.find((c: { id: string }) => c.id === CAL) as {
    syncStatus: string;
    syncError: string | null;
    lastSyncAt: string;
  };
};
const book = (time: string) => bookAmara(t, time);
const eventName = (rootId: string) => `${rootId}@booking-service.ics`;
const events = async () => (await radicale.list('amara', 'work')).sort();
/** The write-back jobs still queued: running, or waiting for a retry. */
const writeJobs = async () =>
  (
    await t.db.pool.query<{ attempts: number; last_error: string | null; locked: boolean }>(
      `select attempts, last_error, locked_at is not null as locked from graphile_worker.jobs where task_identifier = 'write-calendar-event'`,
    )
  ).rows;
const writeJobsDone = () => waitFor('the write-back jobs to finish', async () => (await writeJobs()).length === 0, 10_000);
const failedWrites = async () => {
  const res = await fetch(`${t.url}/metrics`);
  const text = await res.text();
  assert.equal(res.status, 200);
  assert.match(text, /^# TYPE jobs_failed_total counter$/m);
  const m = /^jobs_failed_total\{task="write-calendar-event"\} (\d+)$/m.exec(text);
  return m ? Number(m[1]) : 0;
};
const slots = async (date: string) => {
  const res = await t.request('GET', `/v1/availability?event_type_id=${AMARA_TYPE}&start_date=${date}&end_date=${date}`, {
    key: KEYS.live,
  });
  assert.equal(res.status, 200, res.text);
  return res.body.slots.map((s: { start: string }) => s.start.slice(11, 16)) as string[];
};

describe('a write-back refused with 401 (the host changed their CalDAV password)', { skip }, () => {
  let written: string;
  let refused: string;
  let skipped: string;

  it('NEEDS_REAUTH at once with a syncError naming the booking, no retry, and the last busy time stays', async () => {
    await waitFor('the first sync', async () => (await calendar()).syncStatus === 'SUCCESS');
    written = await book('2026-12-04T09:00:00Z');
    await waitFor('the first write-back', async () => (await events()).includes(eventName(written)));
    await writeJobsDone();

    radicale.setPassword('amara', NEW_PASSWORD);
    refused = await book('2026-12-02T14:00:00Z');
    const c = await waitFor('NEEDS_REAUTH', async () => {
      const x = await calendar();
      return x.syncStatus === 'NEEDS_REAUTH' ? x : undefined;
    });
    assert.match(
      c.syncError!,
      new RegExp(`^writing booking ${refused}: PUT http://127\\.0\\.0\\.1:\\d+/amara/work/${refused}%40booking-service\\.ics: HTTP 401`),
    );
    for (const secret of [OLD_PASSWORD, NEW_PASSWORD]) assert.ok(!c.syncError!.includes(secret));
    // the job ended there: nothing left waiting for a retry, and no attempt counted as failed
    await writeJobsDone();
    assert.equal(await failedWrites(), 0);
    assert.ok(!(await events()).includes(eventName(refused)));
    // the busy time of the last successful sync stays in force (the dentist), besides the booking's own
    const free = await slots('2026-12-02');
    assert.ok(!free.includes('10:00') && !free.includes('10:30') && !free.includes('14:00'), free.join(' '));
    assert.ok(free.includes('09:00') && free.includes('11:00'));
  });

  it('while it waits for credentials nothing is synced or written: a new booking and a cancel are left for later', async () => {
    skipped = await book('2026-12-03T10:00:00Z');
    await routed(t, skipped);
    const cancelled = await t.request('DELETE', `/v1/bookings/${written}`, { key: KEYS.live, body: { reason: 'no longer needed' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await writeJobsDone();
    assert.equal(await failedWrites(), 0);
    assert.deepEqual(await events(), [eventName(written), 'dentist.ics'].sort());
    assert.equal((await syncNow(t, CAL)).status, 'SKIPPED');
    const c = await calendar();
    assert.equal(c.syncStatus, 'NEEDS_REAUTH');
    assert.match(c.syncError!, new RegExp(`^writing booking ${refused}: `));
  });

  it('the seed file giving the new password (booking-service seed) syncs it again and makes the writes it missed', async () => {
    const file = path.join(dir, 'seed.json');
    fs.writeFileSync(file, JSON.stringify(seedWith(NEW_PASSWORD)));
    const r = await runCli(['seed', file], { DATABASE_URL: t.db.url, WEBHOOK_SECRET_KEY: SECRET_KEY });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!(r.stdout + r.stderr).includes(NEW_PASSWORD));

    const c = await waitFor('the sync with the new password', async () => {
      const x = await calendar();
      return x.syncStatus === 'SUCCESS' ? x : undefined;
    });
    assert.equal(c.syncError, null);
    assert.equal(c.lastSyncAt, NOW.toISOString());
    // the booking refused with 401 and the one made meanwhile are written; the cancelled one is deleted
    await waitFor('the missed writes', async () => {
      const now = await events();
      return now.join() === [eventName(refused), eventName(skipped), 'dentist.ics'].sort().join();
    });
    await writeJobsDone();
    const text = (await radicale.get('amara', radicale.calendarUrl('amara', 'work') + eventName(refused))).text;
    assert.match(text, new RegExp(`^X-BOOKING-ID:${refused}\\r$`, 'm'));
    assert.match(text, /^STATUS:CONFIRMED\r$/m);
    assert.equal(await failedWrites(), 0);
    assert.equal((await calendar()).syncStatus, 'SUCCESS');
    // and the host's own events block their time again
    const free = await slots('2026-12-02');
    assert.ok(!free.includes('10:00') && free.includes('09:00'), free.join(' '));
  });
});
