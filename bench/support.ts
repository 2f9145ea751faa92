/**
 * What the benches share: the service in its own process, CPU meters, timed autocannon runs and
 * the seeds of the bench organizations. Not a bench itself (run.ts runs only *.bench.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Pool } from '../src/db/pool.ts';
import type { TestDatabase } from '../test/helpers/db.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import type { SeedJson } from '../test/helpers/fixtures.ts';
import { loadHostId, loadOrganization, testSeed } from '../test/helpers/fixtures.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

// ---------- what a stopped bench leaves behind ----------

/** Child processes still running, and databases to drop, should the bench be stopped midway. */
const leftovers = { children: new Set<ChildProcess>(), drops: [] as (() => Promise<void>)[] };
let watching = false;

/**
 * On Ctrl-C or a kill, a bench's own `finally` never runs: its service processes would go on
 * and its databases stay (the scale bench's are gigabytes). This stops the children, drops the
 * databases, then exits as the signal would have.
 */
function watchStopSignals(): void {
  if (watching) return;
  watching = true;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      void (async () => {
        const exits = [...leftovers.children].map((c) => new Promise((r) => c.once('exit', r)));
        for (const c of leftovers.children) c.kill('SIGTERM');
        await Promise.race([Promise.all(exits), sleep(5000)]);
        for (const drop of leftovers.drops.reverse()) await drop().catch(() => {});
        process.exit(code);
      })();
    });
  }
}

/** `child` is stopped if the bench is (see watchStopSignals). */
export function stopWithBench(child: ChildProcess): void {
  watchStopSignals();
  leftovers.children.add(child);
  child.once('exit', () => leftovers.children.delete(child));
}

/** `drop` runs if the bench is stopped (see watchStopSignals). */
export function dropWithBench(drop: () => Promise<void>): void {
  watchStopSignals();
  leftovers.drops.push(drop);
}

/** A fresh, migrated database for a bench, dropped should the bench be stopped midway (unless BENCH_KEEP_DB). */
export async function benchDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  if (!process.env.BENCH_KEEP_DB) dropWithBench(() => db.drop());
  return db;
}

export async function waitUp(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/**
 * `booking-service serve` (API and worker in one process, as shipped) on a free port, rate limits
 * out of the way; resolves once /readyz answers. `env` adds to or overrides its environment,
 * `nodeArgs` go to its Node process. BENCH_PROF=dir writes a CPU profile of it.
 */
export async function startServe(
  databaseUrl: string,
  env: Record<string, string> = {},
  nodeArgs: readonly string[] = [],
): Promise<{ service: ChildProcess; base: string }> {
  const port = await freePort();
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROF] : [];
  const service = spawn(process.execPath, [...prof, ...nodeArgs, path.join(ROOT, 'bin/booking-service.js'), 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      NODE_ENV: 'production',
      RATE_LIMIT_TEST_PER_MINUTE: '1000000',
      RATE_LIMIT_LIVE_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  stopWithBench(service);
  const base = `http://127.0.0.1:${port}`;
  await waitUp(`${base}/readyz`, service);
  return { service, base };
}

/** Stops a child process and waits for it to exit (at most 10 s). */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000)]);
}

// ---------- the bookings bench's organization ----------

export const BOOKINGS_KEY = 'sk_test_bench_bookings_key_000000000001';
export const BOOKINGS_HOSTS = 20;
export const bookingsHostId = (i: number) => loadHostId('b', i);

/** An organization sized for load: 20 hosts working around the clock, a 15-minute round-robin type. */
export function addBookingsOrganization(seed: SeedJson): SeedJson {
  seed.organizations.push(loadOrganization({ name: 'bench', digit: 'b', key: BOOKINGS_KEY, hosts: BOOKINGS_HOSTS }));
  return seed;
}

/** Request bodies for creates on distinct slots of et_bench: a 15-minute grid from midnight UTC tomorrow, in order. */
export function createBodies(): () => string {
  const day0 = new Date();
  day0.setUTCHours(24, 0, 0, 0);
  let slot = 0;
  return () =>
    JSON.stringify({
      event_type_id: 'et_bench',
      requested_time: new Date(day0.getTime() + slot++ * 15 * 60_000).toISOString(),
      attendee: { name: 'Load', email: `load${slot}@bench.example` },
    });
}

// ---------- the availability bench's team (in the fixtures' org_northwind) ----------

export const DAY_MS = 86_400_000;
export const AVAILABILITY_HOSTS = 20;
export const availabilityHostId = (i: number) => `a0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
export const ZONES = ['Europe/London', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Sydney'];
export const WEEKDAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI'];

export function nextMonday(): Date {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + ((8 - d.getUTCDay()) % 7 || 7)));
}

/** 20 hosts in 5 zones, weekdays 9 to 5, and the ROUND_ROBIN type et_bench_rr (30 min every 15, 10 min buffer after). */
export function addAvailabilityTeam(seed: SeedJson): SeedJson {
  const org = seed.organizations.find((o: { id: string }) => o.id === 'org_northwind')!;
  org.teams.push({ id: 'team_bench_rr', name: 'Bench round robin' });
  for (let i = 0; i < AVAILABILITY_HOSTS; i++) {
    org.members.push({
      id: availabilityHostId(i),
      team_id: 'team_bench_rr',
      name: `Host ${i}`,
      email: `host${i}@bench.example`,
      avatar_url: null,
      role: 'MEMBER',
      skills: [],
      is_active: true,
      timezone: ZONES[i % ZONES.length],
      max_bookings_per_day: 20,
      working_hours: [{ days: WEEKDAYS, start: '09:00', end: '17:00' }],
      out_of_office: [],
    });
  }
  org.event_types.push({
    id: 'et_bench_rr',
    team_id: 'team_bench_rr',
    name: 'Bench round robin',
    slug: 'bench-rr',
    description: null,
    duration: 30,
    slot_interval: 15,
    buffer_after: 10,
    minimum_booking_notice: 0,
    scheduling_type: 'ROUND_ROBIN',
    requires_confirmation: false,
    workload: { prep: 0, meeting: 30, implementation: 0, admin: 0 },
    custom_fields: [],
  });
  return seed;
}

/** 100 bookings per availability host over the 14 days from firstDay: 10 on each of its 10 working days, 40-minute holds. */
export async function insertWindowBookings(pool: Pool, firstDay: Date): Promise<number> {
  const ids: string[] = [];
  const members: string[] = [];
  const starts: Date[] = [];
  for (let h = 0; h < AVAILABILITY_HOSTS; h++) {
    for (let d = 0; d < 14; d++) {
      const day = new Date(firstDay.getTime() + d * DAY_MS);
      if (day.getUTCDay() === 0 || day.getUTCDay() === 6) continue;
      for (let k = 0; k < 10; k++) {
        ids.push(`bkg_bench_${h}_${d}_${k}`);
        members.push(availabilityHostId(h));
        starts.push(new Date(day.getTime() + (2 + k * 1.5) * 3600_000));
      }
    }
  }
  await pool.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, assigned_to_id, host_ids)
     select id, 'org_northwind', 'test', 'et_bench_rr', 'SCHEDULED', s, s + interval '30 minutes', '{"name":"B","email":"b@example.com"}', m, array[m]
       from unnest($1::text[], $2::uuid[], $3::timestamptz[]) as u(id, m, s)`,
    [ids, members, starts],
  );
  await pool.query(
    `insert into booking_members (booking_id, member_id, mode, start_time, during)
     select id, m, 'test', s, tstzrange(s, s + interval '40 minutes', '[)') from unnest($1::text[], $2::uuid[], $3::timestamptz[]) as u(id, m, s)`,
    [ids, members, starts],
  );
  return ids.length;
}

/** The seed both bench organizations start from: the test fixtures plus the two above. */
export function benchSeed(): SeedJson {
  return addAvailabilityTeam(addBookingsOrganization(testSeed()));
}

// ---------- CPU ----------

/** CPU time a process has used, in ms (user, system); zeros where /proc is not there. */
export function cpuOf(pid: number | undefined): { user: number; system: number } {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: (Number(fields[11]) * 1000) / 100, system: (Number(fields[12]) * 1000) / 100 }; // USER_HZ ticks
  } catch {
    return { user: 0, system: 0 };
  }
}
/** CPU time (user + system) a process has used, in ms; zero where /proc is not there. */
export const cpuMs = (pid: number | undefined) => {
  const c = cpuOf(pid);
  return c.user + c.system;
};

/**
 * CPU used by the service process and by the PostgreSQL backends of the bench database.
 * Throughput on a small shared machine swings with whatever else runs; CPU per booking does
 * not, so before/after comparisons should look at it first. Backends come and go with the
 * pools, so they are sampled every 200 ms and each keeps its last reading.
 */
export function cpuMeter(pool: { query: (sql: string) => Promise<{ rows: { pid: number }[] }> }, service: ChildProcess) {
  const pgLast = new Map<number, number>();
  const sample = async () => {
    for (const r of (await pool.query('select pid from pg_stat_activity where datname = current_database()')).rows) {
      const ms = cpuMs(r.pid);
      if (ms > 0) pgLast.set(r.pid, ms);
    }
  };
  const timer = setInterval(() => void sample().catch(() => {}), 200);
  return {
    async read() {
      await sample();
      return { service: cpuOf(service.pid), pg: new Map(pgLast), generator: process.cpuUsage() };
    },
    stop: () => clearInterval(timer),
  };
}
export type CpuReading = Awaited<ReturnType<ReturnType<typeof cpuMeter>['read']>>;

/** CPU per unit of work between two readings, in ms: service (and its system share), PostgreSQL, load generator. */
export function cpuPer(before: CpuReading, after: CpuReading, n: number) {
  let pgMs = 0;
  for (const [pid, ms] of after.pg) pgMs += ms - (before.pg.get(pid) ?? 0);
  const user = (after.service.user - before.service.user) / n;
  const system = (after.service.system - before.service.system) / n;
  const generator = (after.generator.user + after.generator.system - before.generator.user - before.generator.system) / 1000 / n;
  return { service: user + system, system, pg: pgMs / n, generator };
}

export function cpuPerBooking(before: CpuReading, after: CpuReading, n: number): string {
  const c = cpuPer(before, after, n);
  return `CPU per booking: service ${c.service.toFixed(2)} ms (${c.system.toFixed(2)} of it system), PostgreSQL ${c.pg.toFixed(2)} ms; load generator ${c.generator.toFixed(2)} ms`;
}

// ---------- load ----------

/** The median of interleaved rounds by mean req/s (of an even number, the upper middle one). */
export function medianRound<T extends { requests: { average: number } }>(rounds: readonly T[]): T {
  return [...rounds].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(rounds.length / 2)]!;
}

/** One response of a run: when it came (ms from the run's start) and how long it took (ms). */
export interface Response {
  at: number;
  ms: number;
}

/**
 * A run of a fixed number of requests, and its wall time from start to the last response:
 * autocannon checks for the end once a second, so its own duration (and its per-second mean,
 * which counts the last, partial second as a whole one) rounds a run up to whole seconds.
 * `responses` has every response in the order they came, to tell a few stalls from a slower whole.
 */
export async function runTimed(opts: autocannon.Options): Promise<{ result: autocannon.Result; seconds: number; responses: Response[] }> {
  const start = performance.now();
  let last = start;
  const responses: Response[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(opts, (err, r) => (err ? reject(err) : resolve(r)));
    instance.on('response', (_client, _status, _bytes, responseTime: number) => {
      last = performance.now();
      responses.push({ at: last - start, ms: responseTime });
    });
  });
  return { result, seconds: (last - start) / 1000, responses };
}

/** The p-th percentile (0–100) of values sorted ascending; NaN for none. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

/** The run cut into `parts` equal stretches of time: each one's response count and p99 (ms). */
export function timeline(responses: readonly Response[], parts: number): { n: number; p99: number }[] {
  const end = Math.max(responses.at(-1)?.at ?? 0, 1); // responses come in arrival order
  const stretches = Array.from({ length: parts }, () => [] as number[]);
  for (const r of responses) stretches[Math.min(parts - 1, Math.floor((r.at / end) * parts))].push(r.ms);
  return stretches.map((ms) => ({
    n: ms.length,
    p99: percentile(
      ms.sort((a, b) => a - b),
      99,
    ),
  }));
}

export const run = async (opts: autocannon.Options) => (await runTimed(opts)).result;

/** Waits until no booking of the organization is DRAFT (routing done), at most a minute. */
export async function waitRouted(pool: Pool, organizationId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const left = (
      await pool.query(`select count(*)::int as n from bookings where organization_id = $1 and status = 'DRAFT'`, [organizationId])
    ).rows[0].n;
    if (left === 0) return;
    if (Date.now() > deadline) throw new Error(`${left} bookings still DRAFT after 60 s`);
    await sleep(100);
  }
}

/** Waits until graphile-worker has no job due (mail, fan-out), at most two minutes; returns the seconds waited. */
export async function waitDrained(pool: Pool): Promise<number> {
  const drainStart = Date.now();
  for (;;) {
    const left = (
      await pool.query(`select count(*)::int as n from graphile_worker._private_jobs where run_at <= now() and attempts < max_attempts`)
    ).rows[0].n;
    if (left === 0) return (Date.now() - drainStart) / 1000;
    if (Date.now() - drainStart > 120_000) throw new Error(`${left} jobs still queued after 120 s`);
    await sleep(100);
  }
}
