import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { skipBecause } from './components.ts';
import { freePort } from './ports.ts';

/** The real CalDAV server the calendar tests run against (Debian package `radicale`). */
export const RADICALE_BIN = process.env.RADICALE_BIN ?? '/usr/bin/radicale';

/** A node:test `skip` option: false when Radicale is installed, else why the tests are skipped (in CI: a failure). */
export function skipWithoutRadicale(): false | string {
  return fs.existsSync(RADICALE_BIN) ? false : skipBecause(`Radicale is not installed (${RADICALE_BIN}; apt-get install radicale)`);
}

export interface Radicale {
  /** http://127.0.0.1:PORT (no trailing slash) */
  url: string;
  port: number;
  /** the storage folder (collection-root/<user>/<calendar>/ holds the .ics files) */
  storage: string;
  pid: number;
  /** URL of a user's calendar collection, with a trailing slash. */
  calendarUrl(user: string, calendar: string): string;
  /** MKCALENDAR over HTTP. */
  createCalendar(user: string, calendar: string, displayName?: string): Promise<void>;
  /** PUT an event; returns the new ETag. */
  putEvent(user: string, calendar: string, name: string, ics: string): Promise<string | null>;
  deleteEvent(user: string, calendar: string, name: string): Promise<number>;
  /** GET a resource: status, ETag, text. */
  get(user: string, href: string): Promise<{ status: number; etag: string | null; text: string }>;
  /** The names of the .ics files a calendar holds, read over WebDAV. */
  list(user: string, calendar: string): Promise<string[]>;
  /** Changes a user's password in the htpasswd file (Radicale reads it at every login). */
  setPassword(user: string, password: string): void;
  stop(): Promise<void>;
}

export interface RadicaleOptions {
  /** user → password (htpasswd, plain) */
  users: Record<string, string>;
  /**
   * Calendars written into the storage folder before the server starts (the fast way to load
   * thousands of events): user → calendar → { displayName, events: file name → ics }.
   */
  preload?: Record<string, Record<string, { displayName?: string; components?: string; events: Record<string, string> }>>;
}

function writeCalendar(storage: string, user: string, calendar: string, c: NonNullable<RadicaleOptions['preload']>[string][string]) {
  const { displayName, events } = c;
  const dir = path.join(storage, 'collection-root', user, calendar);
  fs.mkdirSync(dir, { recursive: true });
  const props: Record<string, string> = { tag: 'VCALENDAR', 'C:supported-calendar-component-set': c.components ?? 'VEVENT' };
  if (displayName) props['D:displayname'] = displayName;
  fs.writeFileSync(path.join(dir, '.Radicale.props'), JSON.stringify(props));
  for (const [name, ics] of Object.entries(events)) fs.writeFileSync(path.join(dir, name), ics);
}

async function waitUntilUp(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`radicale exited with ${child.exitCode}: ${log()}`);
    try {
      const res = await fetch(`${url}/.web/`, { signal: AbortSignal.timeout(1000) });
      await res.text();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`radicale did not start within 30 s: ${log()}`);
}

/**
 * Starts Radicale on a free loopback port with a temporary storage folder and htpasswd
 * authentication (its own config file: the system's /etc/radicale/config is not read).
 * stop() ends it by its PID and removes the folder.
 */
export async function startRadicale(opts: RadicaleOptions): Promise<Radicale> {
  // in memory where the machine has /dev/shm: Radicale fsyncs every cache file it writes (one per
  // event on first read), which on a disk makes a 10,000-event calendar take minutes
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const dir = fs.mkdtempSync(path.join(base, 'radicale-test-'));
  const storage = path.join(dir, 'collections');
  fs.mkdirSync(storage);
  const users = { ...opts.users };
  // written aside and renamed: a login that reads the file meanwhile sees the old or the new one, never half
  const writeUsers = () => {
    const text =
      Object.entries(users)
        .map(([u, p]) => `${u}:${p}`)
        .join('\n') + '\n';
    fs.writeFileSync(path.join(dir, 'users.new'), text);
    fs.renameSync(path.join(dir, 'users.new'), path.join(dir, 'users'));
  };
  writeUsers();
  for (const [user, calendars] of Object.entries(opts.preload ?? {})) {
    for (const [name, c] of Object.entries(calendars)) writeCalendar(storage, user, name, c);
  }
  const port = await freePort();
  fs.writeFileSync(
    path.join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      'max_content_length = 200000000',
      'timeout = 60',
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${path.join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      'delay = 0',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${storage}`,
      '[web]',
      'type = internal',
      '[logging]',
      'level = warning',
      'mask_passwords = True',
    ].join('\n') + '\n',
  );
  const child = spawn(RADICALE_BIN, ['--config', path.join(dir, 'config')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) process.kill(child.pid, 'SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilUp(url, child, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  const auth = (user: string) => `Basic ${Buffer.from(`${user}:${users[user]}`).toString('base64')}`;
  const calendarUrl = (user: string, calendar: string) => `${url}/${user}/${calendar}/`;
  return {
    url,
    port,
    storage,
    pid: child.pid!,
    calendarUrl,
    async createCalendar(user, calendar, displayName) {
      const body = displayName
        ? `<?xml version="1.0"?><c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>` +
          `<d:displayname>${displayName}</d:displayname></d:prop></d:set></c:mkcalendar>`
        : undefined;
      const res = await fetch(calendarUrl(user, calendar), { method: 'MKCALENDAR', headers: { authorization: auth(user) }, body });
      await res.text();
      if (res.status !== 201) throw new Error(`MKCALENDAR ${calendar}: ${res.status}`);
    },
    async putEvent(user, calendar, name, ics) {
      const res = await fetch(calendarUrl(user, calendar) + name, {
        method: 'PUT',
        headers: { authorization: auth(user), 'content-type': 'text/calendar; charset=utf-8' },
        body: ics,
      });
      await res.text();
      if (res.status >= 300) throw new Error(`PUT ${name}: ${res.status}`);
      return res.headers.get('etag');
    },
    async deleteEvent(user, calendar, name) {
      const res = await fetch(calendarUrl(user, calendar) + name, { method: 'DELETE', headers: { authorization: auth(user) } });
      await res.text();
      return res.status;
    },
    async get(user, href) {
      const res = await fetch(new URL(href, url), { headers: { authorization: auth(user) } });
      return { status: res.status, etag: res.headers.get('etag'), text: await res.text() };
    },
    async list(user, calendar) {
      const res = await fetch(calendarUrl(user, calendar), {
        method: 'PROPFIND',
        headers: { authorization: auth(user), depth: '1', 'content-type': 'application/xml' },
        body: '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>',
      });
      const text = await res.text();
      return [...text.matchAll(/<href>([^<]+\.ics)<\/href>/g)].map((m) => decodeURIComponent(m[1].split('/').pop()!));
    },
    setPassword(user, password) {
      users[user] = password;
      writeUsers();
    },
    stop,
  };
}
