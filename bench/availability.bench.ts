/**
 * Availability: `npm run bench -- availability`
 *   1. The engine alone (pure, in this process): 50 hosts × 30 days × 5,000 busy intervals.
 *   2. GET /v1/availability for a ROUND_ROBIN type with 20 hosts, 14 days, 100 bookings per host,
 *      against a bare Fastify route doing one pg primary-key select, in the same run.
 *   3. GET /v1/freebusy/{userId}: cached (the 60 s cache) against uncached (a cache that never hits).
 *      Also availability under booking traffic: every answer computed anew (answers never found in
 *      the cache), the hosts' own slot starts cached, and BENCH_BOOKINGS_PER_SECOND (default 100)
 *      bookings a second on the team, each dropping its host's starts as a real booking does.
 *   4. GET /v1/availability again, cached and uncached, with and without a connected calendar for
 *      every host holding 5 busy blocks per day (docs/calendars.md), in three interleaved rounds:
 *      the median round of each, and the median of the rounds' with/without ratios.
 * The servers run in a child process started from this file (buildServer in-process there, as
 * test/helpers/app.ts does), so autocannon here does not steal their CPU.
 * BENCH_SECONDS changes the length of each HTTP run (default 8); each route runs twice, best kept.
 * CPU per request (the server process and the bench database's PostgreSQL backends, from /proc)
 * is printed for each route too: on a shared machine it moves far less than req/s.
 * BENCH_ROUTES=availability,availabilityCold,availabilityChurn runs only the named HTTP routes (not the engine, not 4);
 * BENCH_ROUNDS sets the number of interleaved rounds (default 2); BENCH_CPU_PROF=<dir> writes a
 * CPU profile of the server process there.
 */
import { spawn } from 'node:child_process';
import { SERVICE_HEAP_FLAGS } from '../bin/heap-flags.js';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import type { Pool } from '../src/db/pool.ts';
import { createPool } from '../src/db/pool.ts';
import type { HostInput } from '../src/domain/availability/engine.ts';
import { computeSlots } from '../src/domain/availability/engine.ts';
import type { FreeBusyCache } from '../src/domain/availability/freebusy-cache.ts';
import { MemoryFreeBusyCache } from '../src/domain/availability/freebusy-cache.ts';
import { loadSeed } from '../src/domain/seed/load.ts';
import { validateSeed } from '../src/domain/seed/validate.ts';
import { MemoryRateLimitStore } from '../src/http/rate-limit-store.ts';
import { CalendarBusyCache } from '../src/domain/availability/calendar-busy-cache.ts';
import { announceBusyChange, listenForBusyChanges } from '../src/db/busy-changes.ts';
import { buildServer } from '../src/http/server.ts';
import { KEYS, testSeed } from '../test/helpers/fixtures.ts';
import type { CpuReading } from './support.ts';
import {
  AVAILABILITY_HOSTS,
  WEEKDAYS,
  ZONES,
  addAvailabilityTeam,
  availabilityHostId,
  cpuMeter,
  cpuPer,
  insertWindowBookings,
  medianRound,
  nextMonday,
  sleep,
  benchDatabase,
  stopWithBench,
} from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Rounds of step 4 (with and without calendars); odd, so that a median is one round. */
const CALENDAR_ROUNDS = 3;
const ONLY = process.env.BENCH_ROUTES?.split(',');
/** availabilityChurn: bookings per second on the team's hosts (each drops its host's cached starts). */
const CHURN = Number(process.env.BENCH_BOOKINGS_PER_SECOND ?? 100);
const DAY = 86_400_000;
const MIN = 60_000;
const HOSTS = AVAILABILITY_HOSTS;
const hostId = availabilityHostId;

// ---------- child: the servers ----------
if (process.env.BENCH_ROLE === 'server') {
  const url = process.env.BENCH_DB_URL!;
  const config = loadConfig({
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_TEST_PER_MINUTE: '1000000',
    RATE_LIMIT_LIVE_PER_MINUTE: '1000000',
  });
  const pool = createPool(url, 10);
  const never: FreeBusyCache = { get: async () => undefined, set: async () => {}, invalidate: async () => {}, dropLocal: () => {} };
  const answers = new MemoryFreeBusyCache();
  // availabilityChurn: the cache serve has, but answers are never found (every request computes
  // one), and CHURN times a second one host's entries are dropped, as a booking on that host does.
  const hostStarts = new MemoryFreeBusyCache();
  const answersMissed: FreeBusyCache = {
    get: (member, key) => (key.startsWith('availability|') ? Promise.resolve(undefined) : hostStarts.get(member, key)),
    set: (member, key, value) => (key.startsWith('availability|') ? Promise.resolve() : hostStarts.set(member, key, value)),
    invalidate: (ids) => hostStarts.invalidate(ids),
    dropLocal: (ids) => hostStarts.dropLocal(ids),
  };
  const calendars = [new CalendarBusyCache(), new CalendarBusyCache(), new CalendarBusyCache()];
  // as serve does: an announced change of calendar blocks (the parent's, below) reaches both servers
  let listening!: () => void;
  const listened = new Promise<void>((r) => (listening = r));
  listenForBusyChanges(
    url,
    ({ kind, memberIds }) => {
      if (kind === 'calendar') for (const c of calendars) c.invalidate(memberIds);
      void answers.invalidate(memberIds);
      void hostStarts.invalidate(memberIds);
    },
    pino({ level: 'silent' }),
    () => listening(),
  );
  await listened;
  const apps = [
    await buildServer({
      deps: { db: pool, config, now: () => new Date(), freebusyCache: answers, calendarBusy: calendars[0] },
      rateLimitStore: new MemoryRateLimitStore(),
      logger: false,
    }),
    await buildServer({
      deps: { db: pool, config, now: () => new Date(), freebusyCache: never, calendarBusy: calendars[1] },
      rateLimitStore: new MemoryRateLimitStore(),
      logger: false,
    }),
  ];
  const churn = await buildServer({
    deps: { db: pool, config, now: () => new Date(), freebusyCache: answersMissed, calendarBusy: calendars[2] },
    rateLimitStore: new MemoryRateLimitStore(),
    logger: false,
  });
  let booked = 0;
  setInterval(() => void hostStarts.invalidate([hostId(booked++ % HOSTS)]), 1000 / CHURN).unref();
  apps.push(churn);
  const bare = Fastify({ logger: false });
  bare.get('/org/:id', async (req) => {
    const r = await pool.query('select id, name from organizations where id = $1', [(req.params as { id: string }).id]);
    return r.rows[0];
  });
  apps.push(bare);
  const ports: number[] = [];
  for (const a of apps) {
    await a.listen({ port: 0, host: '127.0.0.1' });
    ports.push((a.server.address() as { port: number }).port);
  }
  process.stdout.write(`${JSON.stringify(ports)}\n`);
  process.on('SIGTERM', () => process.exit(0));
} else {
  await main();
}

// ---------- 1. engine ----------
function engineInput(): { hosts: HostInput[]; from: number; to: number } {
  const from = Date.parse('2026-12-01T00:00:00Z');
  const to = from + 30 * DAY;
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const hosts: HostInput[] = [];
  for (let h = 0; h < 50; h++) {
    const busy = [];
    for (let b = 0; b < 100; b++) {
      const start = from + Math.floor(rnd() * 30 * 96) * 15 * MIN;
      busy.push({ start, end: start + (30 + Math.floor(rnd() * 4) * 15) * MIN });
    }
    hosts.push({
      id: hostId(h),
      timezone: ZONES[h % ZONES.length],
      workingHours: [{ days: WEEKDAYS, start: '09:00', end: '17:00' }],
      maxBookingsPerDay: 12,
      busy: [{ starts: busy.map((b) => b.start), ends: busy.map((b) => b.end) }],
      bookingStarts: busy.map((b) => b.start),
    });
  }
  return { hosts, from, to };
}

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p95: q(0.95), min: s[0] };
}

function benchEngine() {
  const { hosts, from, to } = engineInput();
  const rules = { duration: 30, slotInterval: 15, bufferBefore: 10, bufferAfter: 10, from, to, earliest: from };
  const out: Record<string, string>[] = [];
  for (const collective of [false, true]) {
    const t0 = performance.now();
    const first = computeSlots(hosts, rules, collective);
    const cold = performance.now() - t0;
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      computeSlots(hosts, rules, collective);
      times.push(performance.now() - t);
    }
    const s = stats(times);
    out.push({
      case: collective ? 'COLLECTIVE (intersection)' : 'ROUND_ROBIN (union)',
      slots: String(first.length),
      'first call ms': cold.toFixed(2),
      'median ms': s.median.toFixed(2),
      'p95 ms': s.p95.toFixed(2),
      target: '≤ 5 ms',
      ok: s.median <= 5 ? 'yes' : 'NO',
    });
  }
  console.log('\n### engine: 50 hosts × 30 days × 5,000 busy intervals (5 zones, buffers 10/10, 30 min every 15)');
  console.table(out);
}

// ---------- 2 and 3. HTTP ----------
async function seedDatabase(pool: Pool, firstDay: Date) {
  await loadSeed(pool, validateSeed(addAvailabilityTeam(testSeed())));
  const bookings = await insertWindowBookings(pool, firstDay);
  await pool.query('analyze');
  return bookings;
}

/** Each host gets a connected calendar whose last sync stored 5 one-hour busy blocks per day of the range. */
async function addCalendarBusy(pool: Pool, firstDay: Date): Promise<number> {
  const members: string[] = [];
  const starts: Date[] = [];
  for (let h = 0; h < HOSTS; h++) {
    await pool.query(
      `insert into calendars (id, organization_id, user_id, team_id, provider, calendar_id, sync_status)
       values ($1, 'org_northwind', $2, 'team_bench_rr', 'CALDAV', $1, 'SUCCESS')`,
      [`cal_bench_${h}`, hostId(h)],
    );
    await pool.query(
      `insert into calendar_connections (calendar_id, url, username, password_encrypted, password_digest) values ($1, 'https://dav.example/', 'u', 'x', 'x')`,
      [`cal_bench_${h}`],
    );
    await pool.query(`insert into calendar_resources (calendar_id, href, data, events, skipped) values ($1, 'all.ics', '', 70, 0)`, [
      `cal_bench_${h}`,
    ]);
    for (let d = 0; d < 14; d++) {
      for (let k = 0; k < 5; k++) {
        members.push(hostId(h));
        starts.push(new Date(firstDay.getTime() + d * DAY + (1 + k * 2.6) * 3600_000 + h * 7 * MIN));
      }
    }
  }
  await pool.query(
    `insert into calendar_busy (calendar_id, href, member_id, start_time, end_time)
     select 'cal_bench_' || (substr(m::text, 25)::int), 'all.ics', m, s, s + interval '1 hour' from unnest($1::uuid[], $2::timestamptz[]) as u(m, s)`,
    [members, starts],
  );
  await pool.query('analyze');
  return starts.length;
}

function load(url: string, headers: Record<string, string> = {}, seconds = SECONDS): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 16, duration: seconds, headers }, (err, r) => (err ? reject(err) : resolve(r)));
  });
}

function cpuText(c: { service: number; pg: number }): string {
  return `service ${c.service.toFixed(2)} + PostgreSQL ${c.pg.toFixed(2)} = ${(c.service + c.pg).toFixed(2)}`;
}

/** Median of each figure separately (two rounds: their mean). */
function median(cs: { service: number; pg: number }[]): { service: number; pg: number } {
  const m = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  return { service: m(cs.map((c) => c.service)), pg: m(cs.map((c) => c.pg)) };
}

function row(name: string, r: autocannon.Result, base?: autocannon.Result) {
  const ok = r.non2xx === 0 && r.errors === 0;
  return {
    route: name,
    'req/s': Math.round(r.requests.average),
    'p50 ms': r.latency.p50,
    'p99 ms': r.latency.p99,
    'vs baseline': base ? (r.requests.average / base.requests.average).toFixed(2) : '',
    'errors/non-2xx': ok ? '0' : `${r.errors}/${r.non2xx}`,
  };
}

async function main() {
  if (!ONLY) benchEngine();
  const db = await benchDatabase();
  const firstDay = nextMonday();
  const bookings = await seedDatabase(db.pool, firstDay);
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // the servers' process gets serve's heap flags: the young generation's size alone moved an
  // uncached answer's CPU by a fifth (docs/memory.md)
  const child = spawn(process.execPath, [...SERVICE_HEAP_FLAGS, ...profile, fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_ROLE: 'server', BENCH_DB_URL: db.url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  stopWithBench(child);
  try {
    const ports: number[] = await new Promise((resolve, reject) => {
      child.stdout!.once('data', (b: Buffer) => resolve(JSON.parse(b.toString())));
      child.once('exit', (c) => reject(new Error(`server exited ${c}`)));
    });
    const [cachedPort, uncachedPort, churnPort, barePort] = ports;
    const auth = { authorization: `Bearer ${KEYS.secret}` };
    const start = firstDay.toISOString().slice(0, 10);
    const end = new Date(firstDay.getTime() + 13 * DAY).toISOString().slice(0, 10);
    const availUrl = `http://127.0.0.1:${cachedPort}/v1/availability?event_type_id=et_bench_rr&start_date=${start}&end_date=${end}`;
    const probe = (await (await fetch(availUrl, { headers: auth })).json()) as { totalSlots: number };
    console.log(
      `\n### HTTP (${SECONDS} s each, 16 connections): ${HOSTS} hosts, 14 days, ${bookings} bookings; availability answers ${probe.totalSlots} slots`,
    );
    const fbPath = `/v1/freebusy/${hostId(0)}?start=${firstDay.toISOString()}&end=${new Date(firstDay.getTime() + 7 * DAY).toISOString()}&time_slot=30`;
    const all: [string, string, Record<string, string>][] = [
      ['baseline', `http://127.0.0.1:${barePort}/org/org_northwind`, {}],
      ['typeRead', `http://127.0.0.1:${cachedPort}/v1/event-types/et_bench_rr`, auth],
      ['availability', availUrl, auth],
      ['availabilityCold', availUrl.replace(`:${cachedPort}/`, `:${uncachedPort}/`), auth],
      ['availabilityChurn', availUrl.replace(`:${cachedPort}/`, `:${churnPort}/`), auth],
      ['uncached', `http://127.0.0.1:${uncachedPort}${fbPath}`, {}],
      ['cached', `http://127.0.0.1:${cachedPort}${fbPath}`, {}],
    ];
    const targets = all.filter(([name]) => !ONLY || ONLY.includes(name));
    // Rounds with the routes interleaved, best round kept: the machine is shared, and a burst of
    // someone else's work should not decide a figure. Load averages are printed with the result.
    const best: Record<string, autocannon.Result> = {};
    const cpu: Record<string, { service: number; pg: number }[]> = {};
    const meter = cpuMeter(db.pool, child);
    for (const [, url, headers] of targets) await load(url, headers, 2); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url, headers] of targets) {
        const before: CpuReading = await meter.read();
        const r = await load(url, headers);
        (cpu[name] ??= []).push(cpuPer(before, await meter.read(), r.requests.total));
        console.log(
          `  round ${round + 1} ${name}: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, ${cpuText(cpu[name].at(-1)!)}`,
        );
        if (!best[name] || r.requests.average > best[name].requests.average) best[name] = r;
      }
    }
    meter.stop();
    console.log(
      `load average: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    const labels: Record<string, string> = {
      baseline: 'baseline: Fastify + one pg primary-key select',
      typeRead: "reference: GET /v1/event-types/{id} (the app's auth, rate limit, 1 query)",
      availability: 'GET /v1/availability (ROUND_ROBIN, 20 hosts, 14 days)',
      availabilityCold: '  the same with the answer cache off (every request computes)',
      availabilityChurn: `  every answer computed, with ${CHURN} bookings/s on the team's hosts`,
      uncached: 'GET /v1/freebusy (7 days, 30 min) uncached',
      cached: 'GET /v1/freebusy (7 days, 30 min) cached',
    };
    console.table(
      targets.map(([name]) => ({ ...row(labels[name], best[name], best.baseline), 'CPU ms/req (median)': cpuText(median(cpu[name])) })),
    );
    const { availability, availabilityCold, availabilityChurn, uncached, cached } = best;
    if (availability) {
      console.log(
        `availability: ${Math.round(availability.requests.average)} req/s (target ≥ 1,500) ${availability.requests.average >= 1500 ? 'ok' : 'BELOW TARGET'}`,
      );
    }
    if (availabilityCold) {
      const ok = availabilityCold.requests.average >= 1500;
      console.log(
        `availability uncached: ${Math.round(availabilityCold.requests.average)} req/s (target ≥ 1,500) ${ok ? 'ok' : 'BELOW TARGET'}`,
      );
    }
    if (availabilityChurn) {
      const ok = availabilityChurn.requests.average >= 1500;
      console.log(
        `availability computed per request, ${CHURN} bookings/s on its hosts: ${Math.round(availabilityChurn.requests.average)} req/s (target ≥ 1,500) ${ok ? 'ok' : 'BELOW TARGET'}`,
      );
    }
    if (uncached && cached) {
      const ratio = cached.requests.average / uncached.requests.average;
      console.log(`free/busy cached / uncached: ${ratio.toFixed(1)}× (target ≥ 5×) ${ratio >= 5 ? 'ok' : 'BELOW TARGET'}`);
    }

    if (!ONLY) {
      // Without and with calendars, interleaved round by round (the blocks are taken out and put
      // back between runs), so that the machine's neighbours weigh on both alike.
      const blocks = await addCalendarBusy(db.pool, firstDay);
      await db.pool.query('create table bench_calendar_busy as select * from calendar_busy');
      const withCal = (await (await fetch(availUrl.replace(`:${cachedPort}/`, `:${uncachedPort}/`), { headers: auth })).json()) as {
        totalSlots: number;
      };
      console.log(
        `\n### GET /v1/availability with calendars: ${blocks} external busy blocks (5 per host per day); answers ${withCal.totalSlots} slots`,
      );
      // Three rounds, each measuring both sides back to back (in alternating order, so that a drift
      // within a round falls on each side alike); a side's figure is its median round, and the
      // verdict the median of the rounds' own with/without ratios.
      const runs: Record<string, autocannon.Result[]> = {};
      const keep = (name: string, r: autocannon.Result) => (runs[name] ??= []).push(r);
      for (let round = 0; round < CALENDAR_ROUNDS; round++) {
        for (const on of round % 2 === 0 ? [false, true] : [true, false]) {
          await db.pool.query('delete from calendar_busy');
          if (on) await db.pool.query('insert into calendar_busy select * from bench_calendar_busy');
          // as a sync does: the servers drop the hosts' cached answers and calendar blocks
          await announceBusyChange(
            db.pool,
            Array.from({ length: HOSTS }, (_, h) => hostId(h)),
          );
          await sleep(200);
          keep(`cold ${on}`, await load(availUrl.replace(`:${cachedPort}/`, `:${uncachedPort}/`), auth));
          keep(`cached ${on}`, await load(availUrl, auth));
        }
      }
      console.log(
        `load average: ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const pairs: Record<string, autocannon.Result> = {};
      for (const [name, rs] of Object.entries(runs)) pairs[name] = medianRound(rs);
      console.table([
        row('GET /v1/availability without calendars', pairs['cached false']),
        row('  with calendars (vs without)', pairs['cached true'], pairs['cached false']),
        row('the same with the answer cache off, without calendars', pairs['cold false']),
        row('  with calendars (vs without)', pairs['cold true'], pairs['cold false']),
      ]);
      for (const name of ['cached', 'cold']) {
        const changes = runs[`${name} true`].map((r, i) => r.requests.average / runs[`${name} false`][i].requests.average - 1);
        const change = median(changes);
        console.log(
          `availability ${name} with calendars: ${(change * 100).toFixed(1)} % (target within 10 %) ${Math.abs(change) <= 0.1 ? 'ok' : 'OUTSIDE TARGET'}` +
            ` (median of the rounds: ${changes.map((c) => `${(c * 100).toFixed(1)} %`).join(', ')})`,
        );
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    if (process.env.BENCH_KEEP_DB) console.log(`kept database ${db.url}`);
    else await db.drop();
  }
}
