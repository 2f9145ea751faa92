import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { calendarSeed, vevent } from '../helpers/calendar-fixtures.ts';
import { runCli } from '../helpers/cli.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { MEMBERS, testSeed } from '../helpers/fixtures.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';

const PASSWORD = 'Sup3r-secret-app-password';
const soon = (days: number, hours = 0) => new Date(Date.now() + days * 86_400_000 + hours * 3_600_000).toISOString();
const skip = skipWithoutRadicale();

let db: TestDatabase;
let radicale: Radicale;
let dir: string;
let env: Record<string, string>;

before(async () => {
  if (skip) return;
  db = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bs-cal-cli-'));
  radicale = await startRadicale({
    users: { amara: PASSWORD },
    preload: {
      amara: {
        // the CLI syncs at the real time: an event two days ahead is inside its window
        work: { displayName: 'Work', events: { 'a.ics': vevent('a', soon(2), soon(2, 1)) } },
        personal: { displayName: 'Personal', events: {} },
        // tasks only: not an event calendar, never connected
        todo: { displayName: 'Tasks', components: 'VTODO', events: {} },
      },
    },
  });
  env = { DATABASE_URL: db.url, CAL_PASSWORD: PASSWORD, LOG_LEVEL: 'debug' };
  const file = path.join(dir, 'seed.json');
  fs.writeFileSync(file, JSON.stringify(testSeed()));
  const seeded = await runCli(['seed', file], env);
  assert.equal(seeded.code, 0, seeded.stderr);
});

after(async () => {
  await radicale?.stop();
  await db?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** `calendars connect` for Amara; the password is read from the variable `passwordEnv` of `vars`. */
const connect = (extra: string[] = [], url = `${radicale.url}/`, passwordEnv = 'CAL_PASSWORD', vars: Record<string, string> = env) =>
  runCli(
    [
      'calendars',
      'connect',
      '--org',
      'org_northwind',
      '--member',
      MEMBERS.amara,
      '--url',
      url,
      '--username',
      'amara',
      '--password-env',
      passwordEnv,
      ...extra,
    ],
    vars,
  );

describe('booking-service calendars', { skip }, () => {
  it("connect discovers the account's event calendars from the server URL and records them; the password is never printed", async () => {
    const r = await connect(['--primary', 'Personal']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 2, r.stdout);
    assert.match(r.stdout, /CALDAV\s+primary\s+Personal/);
    assert.match(r.stdout, /CALDAV\s+Work/);
    assert.ok(!r.stdout.includes('Tasks'));
    assert.ok(!(r.stdout + r.stderr).includes(PASSWORD));
    const rows = await db.pool.query(
      `select c.provider, c.calendar_name, c.is_primary, c.sync_status, k.password_encrypted from calendars c
         join calendar_connections k on k.calendar_id = c.id where c.user_id = $1 order by c.calendar_name`,
      [MEMBERS.amara],
    );
    assert.deepEqual(
      rows.rows.map((x) => [x.provider, x.calendar_name, x.is_primary, x.sync_status]),
      [
        ['CALDAV', 'Personal', true, 'PENDING'],
        ['CALDAV', 'Work', false, 'PENDING'],
      ],
    );
    for (const x of rows.rows) assert.ok(!x.password_encrypted.includes(PASSWORD));
    const jobs = await db.pool.query(`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'sync-calendar'`);
    assert.equal(jobs.rows[0].n, 2);
    // connecting again updates the same integrations
    const again = await connect();
    assert.equal(again.code, 0, again.stderr);
    const n = await db.pool.query('select count(*)::int as n from calendar_connections');
    assert.equal(n.rows[0].n, 2);
  });

  it('sync prints one line per calendar: status, events read, busy blocks, duration; credentials stay out of the log', async () => {
    const r = await runCli(['calendars', 'sync'], env);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    for (const line of lines)
      assert.match(line, /^cal_\w+ {2}SUCCESS {2}events=\d+ skipped=0 busy_blocks=\d+ requests=\d+ duration_ms=\d+$/);
    assert.ok(lines.some((l) => /events=1 skipped=0 busy_blocks=1 /.test(l)));
    assert.ok(!(r.stdout + r.stderr).includes(PASSWORD));
    assert.ok(!(r.stdout + r.stderr).includes(Buffer.from(`amara:${PASSWORD}`).toString('base64')));
  });

  it('connecting again keeps the busy time read before, in force, until a sync replaces it', async () => {
    // It used to be deleted with the connection's resources: between the connect and a sync that
    // succeeds (never, with the server down) the host could be booked over their meetings.
    const state = async () =>
      (
        await db.pool.query(
          `select c.sync_status, c.last_sync_at, (select count(*)::int from calendar_busy b where b.calendar_id = c.id) as blocks
             from calendars c join calendar_connections k on k.calendar_id = c.id
            where c.user_id = $1 and c.calendar_name = 'Work'`,
          [MEMBERS.amara],
        )
      ).rows[0];
    const synced = await state();
    assert.equal(synced.sync_status, 'SUCCESS');
    assert.equal(synced.blocks, 1);
    const r = await connect();
    assert.equal(r.code, 0, r.stderr);
    const given = await state();
    assert.equal(given.sync_status, 'PENDING');
    assert.equal(given.blocks, 1, 'the meeting still counts');
    assert.deepEqual(given.last_sync_at, synced.last_sync_at, 'lastSyncAt: the busy time in force is from that sync');
    const again = await runCli(['calendars', 'sync'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /events=1 skipped=0 busy_blocks=1 /);
    assert.equal((await state()).blocks, 1);
  });

  it('a calendar that does not exist, a bad URL, a missing password: a clear message and a non-zero exit', async () => {
    const none = await runCli(['calendars', 'sync', '--calendar', 'cal_nope'], env);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no connected calendar "cal_nope"/);
    const http = await connect([], 'http://calendar.example.com/dav/');
    assert.equal(http.code, 1);
    assert.match(http.stderr, /url: must use https \(http is allowed only on a loopback host\)/);
    const noPassword = await connect([], radicale.url, 'UNSET_VARIABLE');
    assert.equal(noPassword.code, 2);
    assert.match(noPassword.stderr, /UNSET_VARIABLE/);
    const wrong = await connect([], radicale.url, 'WRONG', { ...env, WRONG: 'nope' });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /401/);
    assert.ok(!wrong.stderr.includes('nope'));
    const unknown = await connect(['--primary', 'Holidays'], radicale.url);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no calendar named "Holidays" \(found: /);
  });

  it('connect finds a calendar a seed file connected to the same collection: no second integration', async () => {
    const seed = calendarSeed([
      { id: 'cal_jonas_seeded', member: MEMBERS.jonas, url: radicale.calendarUrl('amara', 'work'), username: 'amara', password: PASSWORD },
    ]);
    // a seed file names its calendars as it likes: not by the collection URL
    seed.organizations[0].calendars.find((c: { id: string }) => c.id === 'cal_jonas_seeded').calendarId = 'jonas-work-from-the-file';
    const file = path.join(dir, 'seed-jonas.json');
    fs.writeFileSync(file, JSON.stringify(seed));
    const seeded = await runCli(['seed', file], env);
    assert.equal(seeded.code, 0, seeded.stderr);
    const r = await runCli(
      [
        'calendars',
        'connect',
        '--org',
        'org_northwind',
        '--member',
        MEMBERS.jonas,
        '--url',
        `${radicale.url}/`,
        '--username',
        'amara',
        '--password-env',
        'CAL_PASSWORD',
      ],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /cal_jonas_seeded/);
    const rows = await db.pool.query(
      `select c.id from calendars c join calendar_connections k on k.calendar_id = c.id
        where c.user_id = $1 and rtrim(k.url, '/') = rtrim($2, '/')`,
      [MEMBERS.jonas, radicale.calendarUrl('amara', 'work')],
    );
    assert.deepEqual(
      rows.rows.map((x) => x.id),
      ['cal_jonas_seeded'],
    );
  });
});
