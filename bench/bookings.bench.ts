/**
 * Bookings: the service (`booking-service serve`: API and worker in one process, as shipped)
 * in its own Node process, load from autocannon in this one.
 *   1. POST /bookings on distinct slots: creates/s and p99; then DRAFT → SCHEDULED latency
 *      (commit of the create to commit of the routing) under that load, p50/p99.
 *   2. GET /bookings/{id} against a bare Fastify + pg primary-key route (its own process too),
 *      measured in the same run, once the worker has drained the queue (mail; the bench organization
 *      subscribes no webhook, so no fan-out is queued).
 *   3. GET /bookings page 1 vs page 1,000 (limit 100) over 100,000 bookings.
 * `npm run bench -- bookings`   (BENCH_CREATES, BENCH_SECONDS, BENCH_CONNECTIONS (creates, 16) to change the sizes; BENCH_PROF=dir
 * writes a CPU profile of the service; BENCH_CREATES_ONLY=1 stops after part 1)
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { encodeCursor } from '../src/domain/bookings/cursor.ts';
import { loadSeed } from '../src/domain/seed/load.ts';
import { validateSeed } from '../src/domain/seed/validate.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { testSeed } from '../test/helpers/fixtures.ts';

const CREATES = Number(process.env.BENCH_CREATES ?? 4000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CREATE_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const LIST_ROWS = 100_000;
const KEY = 'sk_test_bench_bookings_key_000000000001';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOSTS = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function waitUp(url: string, child: ChildProcess): Promise<void> {
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

/** An organization sized for load: 20 hosts working around the clock, a 15-minute round-robin type. */
function benchSeed() {
  const seed = testSeed();
  const id = (i: number) => `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  seed.organizations.push({
    id: 'org_bench',
    name: 'Bench',
    cancellation_policy: { enabled: true, cutoff_minutes: 0 },
    teams: [{ id: 'team_bench', name: 'Bench' }],
    members: Array.from({ length: HOSTS }, (_, i) => ({
      id: id(i + 1), team_id: 'team_bench', name: `Host ${i + 1}`, email: `host${i + 1}@bench.example`, avatar_url: null, role: 'MEMBER',
      skills: [], is_active: true, timezone: 'UTC', max_bookings_per_day: 1000,
      working_hours: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'], start: '00:00', end: '24:00' }], out_of_office: [],
    })),
    event_types: [{
      id: 'et_bench', team_id: 'team_bench', name: 'Bench call', slug: 'bench-call', description: 'load', duration: 15, slot_interval: 15,
      minimum_booking_notice: 0, scheduling_type: 'ROUND_ROBIN', requires_confirmation: false,
      workload: { prep: 0, meeting: 15, implementation: 0, admin: 0 }, custom_fields: [],
    }],
    calendars: [],
    api_keys: [{ key: KEY, name: 'Bench key', scopes: ['bookings:create', 'bookings:read', 'bookings:write'] }],
  });
  return seed;
}

/** CPU time a process has used, in ms (user, system); zeros where /proc is not there. */
function cpuOf(pid: number | undefined): { user: number; system: number } {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: (Number(fields[11]) * 1000) / 100, system: (Number(fields[12]) * 1000) / 100 }; // USER_HZ ticks
  } catch {
    return { user: 0, system: 0 };
  }
}
const cpuMs = (pid: number | undefined) => {
  const c = cpuOf(pid);
  return c.user + c.system;
};

/**
 * CPU used by the service process and by the PostgreSQL backends of the bench database.
 * Throughput on a small shared machine swings with whatever else runs; CPU per booking does
 * not, so before/after comparisons should look at it first. Backends come and go with the
 * pools, so they are sampled every 200 ms and each keeps its last reading.
 */
function cpuMeter(pool: { query: (sql: string) => Promise<{ rows: { pid: number }[] }> }, service: ChildProcess) {
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
type CpuReading = Awaited<ReturnType<ReturnType<typeof cpuMeter>['read']>>;

function cpuPerBooking(before: CpuReading, after: CpuReading, n: number): string {
  let pgMs = 0;
  for (const [pid, ms] of after.pg) pgMs += ms - (before.pg.get(pid) ?? 0);
  const user = (after.service.user - before.service.user) / n;
  const system = (after.service.system - before.service.system) / n;
  const generator = (after.generator.user + after.generator.system - before.generator.user - before.generator.system) / 1000 / n;
  return `CPU per booking: service ${(user + system).toFixed(2)} ms (${system.toFixed(2)} of it system), PostgreSQL ${(pgMs / n).toFixed(2)} ms; load generator ${generator.toFixed(2)} ms`;
}

/**
 * A run of a fixed number of requests, and its wall time from start to the last response:
 * autocannon checks for the end once a second, so its own duration (and its per-second mean,
 * which counts the last, partial second as a whole one) rounds a run up to whole seconds.
 */
async function runTimed(opts: autocannon.Options): Promise<{ result: autocannon.Result; seconds: number }> {
  const start = performance.now();
  let last = start;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(opts, (err, r) => (err ? reject(err) : resolve(r)));
    instance.on('response', () => {
      last = performance.now();
    });
  });
  return { result, seconds: (last - start) / 1000 };
}

const run = async (opts: autocannon.Options) => (await runTimed(opts)).result;

const db = await createTestDatabase();
await loadSeed(db.pool, validateSeed(benchSeed()));
const children: ChildProcess[] = [];
const table: Record<string, string | number>[] = [];
try {
  const port = await freePort();
  // BENCH_PROF=dir: CPU profile of the service process (written when it exits).
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROF] : [];
  const service = spawn(process.execPath, [...prof, path.join(ROOT, 'bin/booking-service.js'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', NODE_ENV: 'production',
      RATE_LIMIT_TEST_PER_MINUTE: '1000000', RATE_LIMIT_LIVE_PER_MINUTE: '1000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(service);
  const base = `http://127.0.0.1:${port}`;
  await waitUp(`${base}/readyz`, service);
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

  // 1. creates on distinct slots, a 15-minute grid starting tomorrow (UTC)
  const day0 = new Date();
  day0.setUTCHours(24, 0, 0, 0);
  let slot = 0;
  const body = () =>
    JSON.stringify({ event_type_id: 'et_bench', requested_time: new Date(day0.getTime() + slot++ * 15 * 60_000).toISOString(),
      attendee: { name: 'Load', email: `load${slot}@bench.example` } });
  await run({ url: `${base}/v1/bookings`, method: 'POST', headers, connections: 8, amount: 300, requests: [{ setupRequest: (r) => ({ ...r, body: body() }) }] });
  const meter = cpuMeter(db.pool, service);
  const cpuStart = await meter.read();
  const { result: created, seconds } = await runTimed({
    url: `${base}/v1/bookings`, method: 'POST', headers, connections: CREATE_CONNECTIONS, amount: CREATES,
    requests: [{ setupRequest: (r) => ({ ...r, body: body() }) }],
  });
  const cpuCreated = await meter.read();
  const non2xx = created.non2xx + created.errors;
  const rate = created['2xx'] / seconds;
  table.push({ measure: 'POST /bookings, distinct slots', 'req/s': Math.round(rate), 'p50 ms': created.latency.p50, 'p99 ms': created.latency.p99, note: `${created['2xx']} creates in ${seconds.toFixed(2)} s, ${CREATE_CONNECTIONS} connections, ${non2xx} not 201` });

  const deadline = Date.now() + 60_000;
  for (;;) {
    const left = (await db.pool.query(`select count(*)::int as n from bookings where organization_id = 'org_bench' and status = 'DRAFT'`)).rows[0].n;
    if (left === 0) break;
    if (Date.now() > deadline) throw new Error(`${left} bookings still DRAFT after 60 s`);
    await sleep(100);
  }
  const routing = (await db.pool.query(
    `select percentile_cont(array[0.5, 0.99]) within group (order by extract(epoch from updated_at - created_at) * 1000) as p
       from bookings where organization_id = 'org_bench'`,
  )).rows[0].p as number[];
  table.push({ measure: 'DRAFT → SCHEDULED under that load', 'req/s': '', 'p50 ms': Math.round(routing[0]), 'p99 ms': Math.round(routing[1]), note: 'create commit → routing commit' });

  // The serve process's worker may still have mail to send (fan-out too, where subscribed); GETs
  // measured while it churns through them would measure the worker, not the route (and the
  // bare route after it would get a quiet machine). So wait until the queue has drained.
  const drainStart = Date.now();
  for (;;) {
    const left = (await db.pool.query(
      `select count(*)::int as n from graphile_worker._private_jobs where run_at <= now() and attempts < max_attempts`,
    )).rows[0].n;
    if (left === 0) break;
    if (Date.now() - drainStart > 120_000) throw new Error(`${left} jobs still queued after 120 s`);
    await sleep(100);
  }
  table.push({ measure: 'job queue drained', 'req/s': '', 'p50 ms': '', 'p99 ms': '', note: `${((Date.now() - drainStart) / 1000).toFixed(1)} s after the last booking was routed; the GETs below run on a drained queue` });
  const cpuDrained = await meter.read();
  meter.stop();
  table.push({ measure: 'cost of the creates', 'req/s': '', 'p50 ms': '', 'p99 ms': '', note: `during the creates: ${cpuPerBooking(cpuStart, cpuCreated, CREATES)}` });
  table.push({ measure: 'cost incl. routing and mail', 'req/s': '', 'p50 ms': '', 'p99 ms': '', note: `until the queue drained: ${cpuPerBooking(cpuStart, cpuDrained, CREATES)}` });

  if (!process.env.BENCH_CREATES_ONLY) {
    // 2. GET by id vs a bare Fastify + pg route over the same rows
    const ids = (await db.pool.query(`select id from bookings where organization_id = 'org_bench' limit 1000`)).rows.map((r) => r.id as string);
    const barePort = await freePort();
    const bareCode = `
      import Fastify from 'fastify'; import pg from 'pg';
      const pool = new pg.Pool({ connectionString: ${JSON.stringify(db.url)}, max: 20 });
      const app = Fastify({ logger: false });
      app.get('/bare/:id', async (req, reply) => {
        const r = await pool.query('select * from bookings where id = $1', [req.params.id]);
        if (!r.rows[0]) return reply.code(404).send({ success: false });
        return { success: true, booking: r.rows[0] };
      });
      await app.listen({ port: ${barePort}, host: '127.0.0.1' });`;
    const bare = spawn(process.execPath, ['--input-type=module', '-e', bareCode], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(bare);
    await waitUp(`http://127.0.0.1:${barePort}/bare/${ids[0]}`, bare);
    const pick = () => ids[Math.floor(Math.random() * ids.length)];
    const getOpts = (url: (id: string) => string): autocannon.Options => ({
      url: url(ids[0]), headers: { authorization: `Bearer ${KEY}` }, connections: 16, duration: SECONDS,
      requests: [{ setupRequest: (r) => ({ ...r, path: new URL(url(pick())).pathname }) }],
    });
    await run({ ...getOpts((id) => `${base}/v1/bookings/${id}`), duration: 2 });
    await run({ ...getOpts((id) => `http://127.0.0.1:${barePort}/bare/${id}`), duration: 2 });
    // Alternating rounds, so that load from elsewhere on a shared machine falls on both sides
    // alike; each side reports its better round.
    const serviceRounds: autocannon.Result[] = [];
    const bareRounds: autocannon.Result[] = [];
    for (let i = 0; i < 2; i++) {
      serviceRounds.push(await run({ ...getOpts((id) => `${base}/v1/bookings/${id}`), duration: SECONDS / 2 }));
      bareRounds.push(await run({ ...getOpts((id) => `http://127.0.0.1:${barePort}/bare/${id}`), duration: SECONDS / 2 }));
    }
    const best = (rs: autocannon.Result[]) => rs.reduce((a, b) => (b.requests.average > a.requests.average ? b : a));
    const service1 = best(serviceRounds);
    const bare1 = best(bareRounds);
    const ratio = Math.round((service1.requests.average / bare1.requests.average) * 100);
    const rounds = (rs: autocannon.Result[]) => rs.map((r) => Math.round(r.requests.average)).join(' / ');
    table.push({ measure: 'GET /bookings/{id}', 'req/s': Math.round(service1.requests.average), 'p50 ms': service1.latency.p50, 'p99 ms': service1.latency.p99, note: `${ratio} % of the bare route (target ≥ 60 %); rounds ${rounds(serviceRounds)}; ${serviceRounds.reduce((n, r) => n + r.non2xx, 0)} not 200` });
    table.push({ measure: 'bare Fastify + pg by primary key', 'req/s': Math.round(bare1.requests.average), 'p50 ms': bare1.latency.p50, 'p99 ms': bare1.latency.p99, note: `no auth, no schema; rounds ${rounds(bareRounds)}` });

    // 3. page 1 vs page 1,000 over 100,000 bookings
    await db.pool.query(
      `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, created_at)
       select 'bkg_bulk' || lpad(g::text, 8, '0'), 'org_bench', 'test', 'et_bench', 'SCHEDULED',
              now() + g * interval '1 minute', now() + g * interval '1 minute' + interval '15 minutes',
              jsonb_build_object('name', 'Bulk ' || g, 'email', 'bulk' || (g % 1000) || '@bench.example'),
              now() - interval '30 days' + (g / 3) * interval '1 second'
         from generate_series(1, $1) g`,
      [LIST_ROWS],
    );
    // as autovacuum would have by then: page 1 holds the rows the creates and routing just updated
    await db.pool.query('vacuum analyze bookings');
    const total = (await db.pool.query(`select count(*)::int as n from bookings where organization_id = 'org_bench' and mode = 'test'`)).rows[0].n as number;
    const at = (await db.pool.query(
      `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as c from bookings
        where organization_id = 'org_bench' and mode = 'test' order by created_at desc, id desc offset $1 limit 1`,
      [999 * 100 - 1],
    )).rows[0];
    const cursor = encodeURIComponent(encodeCursor({ createdAt: at.c, id: at.id }));
    const listOpts = (query: string): autocannon.Options => ({ url: `${base}/v1/bookings?${query}`, headers: { authorization: `Bearer ${KEY}` }, connections: 8, duration: SECONDS });
    await run({ ...listOpts('limit=100'), duration: 2 });
    // Alternating rounds, each side reporting its better one, as for GET by id above.
    const firstRounds: autocannon.Result[] = [];
    const deepRounds: autocannon.Result[] = [];
    for (let i = 0; i < 2; i++) {
      firstRounds.push(await run({ ...listOpts('limit=100'), duration: SECONDS / 2 }));
      deepRounds.push(await run({ ...listOpts(`limit=100&cursor=${cursor}`), duration: SECONDS / 2 }));
    }
    const page1 = best(firstRounds);
    const page1000 = best(deepRounds);
    const diff = Math.round(((page1000.latency.mean - page1.latency.mean) / page1.latency.mean) * 100);
    table.push({ measure: `GET /bookings page 1 (of ${total})`, 'req/s': Math.round(page1.requests.average), 'p50 ms': page1.latency.p50, 'p99 ms': page1.latency.p99, note: `limit 100; rounds ${rounds(firstRounds)}` });
    table.push({ measure: 'GET /bookings page 1,000', 'req/s': Math.round(page1000.requests.average), 'p50 ms': page1000.latency.p50, 'p99 ms': page1000.latency.p99, note: `mean latency ${diff >= 0 ? '+' : ''}${diff} % vs page 1 (target ±20 %); rounds ${rounds(deepRounds)}` });
  }
  console.table(table);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await sleep(500);
  await db.drop();
}
