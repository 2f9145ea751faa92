/**
 * Scale: `npm run bench -- scale`. The same requests at 10 k, 100 k and 1 M bookings, in one run
 * against a real `booking-service serve` process (API and worker, as shipped), so that the cost of
 * a request can be seen not to grow with the data (target: every latency at the largest size
 * within ±20 % of the smallest).
 *
 * The data is written by SQL in bulk (bench/scale-data.ts): 100 organizations, 10,000 members,
 * 1,000 event types, the bookings of two years with their holds, events, webhook messages and
 * deliveries and emails, and connected calendars with external busy blocks where the schema has
 * calendar sync. Each size adds bookings to the previous one, then VACUUM ANALYZEs the read
 * path's tables and ANALYZEs the rest (autovacuum is off on the machines we run on); every size
 * but the largest is then copied to a database of its own (CREATE DATABASE … TEMPLATE).
 * Once all are loaded, the sizes are visited in turn, small to large and back (10 k, 100 k, 1 M,
 * 1 M, 100 k, 10 k for SCALE_VISITS=2), so that the machine's drift over the run (a fifth and
 * more on the slower machines of the kind, between sizes measured minutes apart) weighs on every
 * size alike. Each visit starts a fresh `serve` on the size's database (FREEBUSY_CACHE=off, so
 * availability and free/busy compute every answer; retention held off, see KEEP_HISTORY), warms
 * it with creates, and measures its share of:
 *   - POST /bookings on distinct slots (the bookings bench's org_bench: 20 hosts, round robin):
 *     p50/p99 over every visit's creates, creates/s, CPU, WAL bytes and buffers touched per
 *     booking, and the p99 of each tenth of each visit's run (a few stalls, or a slower whole);
 *     then DRAFT → SCHEDULED p50/p99 of those creates;
 *   - once the job queue has drained, rounds of the GETs, interleaved route by route (the rate
 *     of the median round over all visits, and latencies over every round's responses): GET /v1/availability uncached (the availability
 *     bench's ROUND_ROBIN case: 20 hosts, 14 days, 100 bookings per host in the window), GET
 *     /v1/freebusy uncached (7 days, 30 min), GET /v1/bookings page 1 and page 1,000 (limit 100;
 *     org_bench holds a tenth of all bookings, so page 1,000 exists from 1 M on; below that the
 *     deepest full page is measured and named);
 *   - the largest tables (pg_total_relation_size) and indexes.
 * Then, at the largest size, retention under live traffic: a fresh `serve` with the default
 * retention (30 days, so about 95 % of the generated outboxes are past it) measures the same
 * creates twice, first quietly, then while one enforce-retention run works off that backlog,
 * sampling the backends that wait on a lock; and reports the rows deleted and the run's length.
 * Environment: SCALE_SIZES (default 10000,100000,1000000), SCALE_CREATES (creates per size over
 * all its visits, 2000), SCALE_VISITS (2), SCALE_SECONDS (length of a GET round, 4), SCALE_ROUNDS
 * (GET rounds per size over all its visits, 4), SCALE_RETENTION=0 skips the retention step,
 * BENCH_KEEP_DB=1 keeps the largest size's database (the copies are dropped). Expect 6 to 18 minutes on 2 cores for the
 * default sizes (the machines of the kind differ that much), most of it the 1 M load and the
 * retention step's 2-minute run.
 */
import fs from 'node:fs';
import os from 'node:os';
import type autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { encodeCursor } from '../src/domain/bookings/cursor.ts';
import { loadSeed } from '../src/domain/seed/load.ts';
import { validateSeed } from '../src/domain/seed/validate.ts';
import type { Pool } from '../src/db/pool.ts';
import { RETENTION_LOCK } from '../src/db/queries/retention.ts';
import { retentionTargets } from '../src/jobs/tasks/enforce-retention.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { KEYS } from '../test/helpers/fixtures.ts';
import { GAP_DAYS, generateBookings, generateCalendars, generateTenants, largest, markCalendarsTried, settle } from './scale-data.ts';
import {
  BOOKINGS_KEY,
  DAY_MS,
  availabilityHostId,
  benchSeed,
  cpuMeter,
  cpuPer,
  createBodies,
  insertWindowBookings,
  medianRound,
  nextMonday,
  percentile,
  run,
  runTimed,
  sleep,
  startServe,
  stop,
  timeline,
  type Response,
  waitDrained,
  waitRouted,
  benchDatabase,
  dropWithBench,
} from './support.ts';

/**
 * The generated outboxes span two years and retention keeps 30 days by default, so the
 * enforce-retention job (every 10 minutes) would start deleting about 95 % of them whenever a
 * tick fell inside a measurement, and the figures would be retention's backlog as much as the
 * requests'. A deployment's retention would have kept these tables at 30 days all along; here
 * they stay whole, the larger case for every read and write measured. Retention's own cost is
 * in docs/operations.md.
 */
const KEEP_HISTORY = {
  RETENTION_DAYS_EVENTS: '36500',
  RETENTION_DAYS_WEBHOOK_DELIVERIES: '36500',
  RETENTION_DAYS_EMAILS: '36500',
};

/** The tables enforce-retention deletes from. */
const RETAINED = retentionTargets(loadConfig({})).map((t) => t.table);

const SIZES = (process.env.SCALE_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const CREATES = Number(process.env.SCALE_CREATES ?? 2000);
const SECONDS = Number(process.env.SCALE_SECONDS ?? 4);
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 4);
const VISITS = Number(process.env.SCALE_VISITS ?? 2);
const WARM_CREATES = 200;

if (SIZES.some((s, i) => !Number.isInteger(s) || s < 1000 || (i > 0 && s <= SIZES[i - 1]))) {
  throw new Error(`SCALE_SIZES: increasing whole numbers of at least 1000, got "${process.env.SCALE_SIZES}"`);
}
if (!Number.isInteger(VISITS) || VISITS < 1 || !Number.isInteger(ROUNDS) || ROUNDS < VISITS) {
  throw new Error(`SCALE_VISITS and SCALE_ROUNDS: whole numbers, at least one round a visit`);
}
// each size's creates take a 15-minute grid of its own from tomorrow on, which the generated
// bookings leave free; the largest size's database also takes the retention step's
const SLOTS = CREATES + WARM_CREATES * VISITS + (process.env.SCALE_RETENTION === '0' ? 0 : 2 * CREATES + WARM_CREATES);
if ((SLOTS * 15) / 1440 > GAP_DAYS - 1) throw new Error('SCALE_CREATES: too many creates for the free window');

interface Measured {
  size: number;
  bookings: number;
  loadSeconds: number;
  /** walKb: WAL written per create while the creates ran (routing's, running alongside, included) */
  create: { rate: number; p50: number; p99: number; failed: number; conflicts: number; service: number; pg: number; walKb: number };
  /** Each visit's creates in tenths of their run: each tenth's creates and their p99 (a p99 from a few stalls, or from all) */
  createTimelines: { n: number; p99: number }[][];
  /**
   * Buffers PostgreSQL touched per create (the database's backends, routing's included): `hit`
   * in shared_buffers, `read` from outside them (the OS page cache or the disk). Reads that grow
   * with the data mean the write path's pages no longer fit in shared_buffers.
   */
  buffers: { hit: number; read: number };
  routing: { p50: number; p99: number };
  gets: Record<string, autocannon.Result & { rounds: number[]; service: number; pg: number }>;
  /** serve's resident memory at the end, and its peak, in MB */
  rss: { now: number; peak: number };
  deepPage: number;
  sizes: Awaited<ReturnType<typeof largest>>;
  /** every size's largest tables, measured at each size (bytes, indexes and TOAST included) */
  tableBytes: Record<string, number>;
}

/** A size's database and what its visits measured. */
interface Target {
  size: number;
  bookings: number;
  loadSeconds: number;
  url: string;
  pool: Pool;
  drop(): Promise<void>;
  /** the creates' bodies: a grid of slots of its own, from tomorrow on */
  body: () => string;
  visits: Visit[];
}

/** What one visit to a size measured; costs are totals, not per request. */
interface Visit {
  result: autocannon.Result;
  seconds: number;
  responses: Response[];
  cpu: ReturnType<typeof cpuPer>;
  walBytes: number;
  buffers: { hit: number; read: number };
  routingMs: number[];
  /** Each GET's rounds, with every response's latency (ms) */
  rounds: Record<string, (autocannon.Result & ReturnType<typeof cpuPer> & { times: number[] })[]>;
  rss: { now: number; peak: number };
  deepPage: number;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const kilo = (n: number) => (n >= 1_000_000 ? `${+(n / 1_000_000).toFixed(2)} M` : n >= 1000 ? `${+(n / 1000).toFixed(1)} k` : String(n));

const db = await benchDatabase();
const dbName = new URL(db.url).pathname.slice(1);
/** The database of each size: copies of the bench database taken as it grew, and the bench database itself for the largest. */
const targets: Target[] = [];
const results: Measured[] = [];
try {
  const t0 = performance.now();
  await loadSeed(db.pool, validateSeed(benchSeed()));
  const firstDay = nextMonday();
  const windowBookings = await insertWindowBookings(db.pool, firstDay);
  await generateTenants(db.pool);
  const blocks = await generateCalendars(db.pool, firstDay);
  console.log(
    `# tenants: 100 organizations, 10,000 members, 1,000 event types; ${windowBookings} bookings in the availability window; ` +
      (blocks === undefined ? 'no calendar sync in this schema, so no external busy blocks' : `${blocks} external busy blocks`) +
      ` (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  let loaded = 0;
  for (const size of SIZES) {
    const loadStart = performance.now();
    await generateBookings(db.pool, loaded, size);
    loaded = size;
    await settle(db.pool);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const bookings = Number((await db.pool.query('select count(*) as n from bookings')).rows[0].n);
    const last = size === SIZES.at(-1);
    const copyStart = performance.now();
    const target = last ? { url: db.url, pool: db.pool, drop: async () => {} } : await copyOf();
    targets.push({ size, bookings, loadSeconds, ...target, body: createBodies(), visits: [] });
    console.log(
      `# ${kilo(size)} generated bookings (${bookings} in all): loaded and analyzed in ${loadSeconds.toFixed(1)} s` +
        (last ? '' : `, copied in ${((performance.now() - copyStart) / 1000).toFixed(1)} s`),
    );
  }
  // Visit the sizes in turn, small to large and back (10 k, 100 k, 1 M, 1 M, 100 k, 10 k for
  // two visits), so that the machine's drift over the run falls on every size alike.
  const order = Array.from({ length: VISITS }, (_, v) => (v % 2 === 0 ? targets : [...targets].reverse())).flat();
  for (const [i, target] of order.entries()) {
    const n = target.visits.length;
    target.visits.push(await visit(target, firstDay, share(CREATES, n), share(ROUNDS, n)));
    console.log(
      `visit ${i + 1} of ${order.length}: ${kilo(target.size)}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  }
  const names = new Set<string>();
  for (const t of targets) {
    results.push(await summarize(t));
    for (const name of results.at(-1)!.sizes.tables.map((x) => x.name)) names.add(name);
  }
  for (const [i, t] of targets.entries()) results[i].tableBytes = await tableBytes(t.pool, [...names]);
  for (const m of results) printSize(m);
  printCurve(results, blocks);
  if (process.env.SCALE_RETENTION !== '0') await retentionUnderTraffic(targets.at(-1)!.body);
} finally {
  for (const t of targets) await t.drop().catch(() => {});
  if (process.env.BENCH_KEEP_DB) console.log(`kept database ${db.url}`);
  else await db.drop();
}

/** A copy of the bench database as it is now, to be measured after the larger sizes are loaded. */
async function copyOf(): Promise<Pick<Target, 'url' | 'pool' | 'drop'>> {
  const copy = await createTestDatabase({ template: dbName });
  dropWithBench(() => copy.drop());
  return copy;
}

/** Visit n's share of a total spread over VISITS visits (the shares differ by at most one). */
function share(total: number, n: number): number {
  return Math.floor((total * (n + 1)) / VISITS) - Math.floor((total * n) / VISITS);
}

/** The creates answered 409: slots that every host's calendar holds (generateCalendars), refused by design. */
function conflictsOf(result: autocannon.Result): number {
  return (result.statusCodeStats as Record<string, { count: number }> | undefined)?.['409']?.count ?? 0;
}

/** `amount` creates on the next distinct slots of org_bench, `connections` at a time. */
function createsOn(base: string, body: () => string) {
  const headers = { authorization: `Bearer ${BOOKINGS_KEY}`, 'content-type': 'application/json' };
  return (amount: number, connections: number) =>
    runTimed({
      url: `${base}/v1/bookings`,
      method: 'POST',
      headers,
      connections,
      amount,
      requests: [{ setupRequest: (r) => ({ ...r, body: body() }) }],
    });
}

/**
 * One visit to a size: a fresh `serve` on its database, warmed with creates; then `creates`
 * creates at 16 connections, their routing, and (once the job queue has drained) `rounds` rounds
 * of the GETs, interleaved route by route.
 */
async function visit(target: Target, firstDay: Date, creates: number, rounds: number): Promise<Visit> {
  const { pool } = target;
  await markCalendarsTried(pool); // minutes may have passed since its load: its calendars' syncs must not fall due now
  const { service, base } = await startServe(target.url, { FREEBUSY_CACHE: 'off', ...KEEP_HISTORY });
  try {
    const create = createsOn(base, target.body);
    await create(WARM_CREATES, 8);
    await waitRouted(pool, 'org_bench');
    const since = (await pool.query('select now() as t')).rows[0].t as Date;
    const meter = cpuMeter(pool, service);
    const before = await meter.read();
    const walFrom = (await pool.query('select pg_current_wal_lsn() as lsn')).rows[0].lsn as string;
    const buffersFrom = await buffersOf(pool);
    const { result, seconds, responses } = await create(creates, 16);
    const after = await meter.read();
    const walBytes = Number((await pool.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1) as n', [walFrom])).rows[0].n);
    meter.stop();
    const buffersTo = await buffersOf(pool);
    await waitRouted(pool, 'org_bench');
    const routingMs = (
      await pool.query(
        `select extract(epoch from updated_at - created_at) * 1000 as ms
           from bookings where organization_id = 'org_bench' and created_at >= $1 and id not like 'bkg\\_s%'`,
        [since],
      )
    ).rows.map((r) => Number(r.ms));
    await waitDrained(pool);

    const start = firstDay.toISOString().slice(0, 10);
    const end = new Date(firstDay.getTime() + 13 * DAY_MS).toISOString().slice(0, 10);
    const secret = { authorization: `Bearer ${KEYS.secret}` };
    const listed = Number(
      (await pool.query(`select count(*) as n from bookings where organization_id = 'org_bench' and mode = 'test'`)).rows[0].n,
    );
    const deepPage = Math.min(1000, Math.floor(listed / 100));
    const at = (
      await pool.query(
        `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as c from bookings
        where organization_id = 'org_bench' and mode = 'test' order by created_at desc, id desc offset $1 limit 1`,
        [(deepPage - 1) * 100 - 1],
      )
    ).rows[0];
    const cursor = encodeURIComponent(encodeCursor({ createdAt: at.c, id: at.id }));
    const fb = `start=${firstDay.toISOString()}&end=${new Date(firstDay.getTime() + 7 * DAY_MS).toISOString()}&time_slot=30`;
    const gets: [string, string, Record<string, string>, number][] = [
      ['availability', `${base}/v1/availability?event_type_id=et_bench_rr&start_date=${start}&end_date=${end}`, secret, 16],
      ['freebusy', `${base}/v1/freebusy/${availabilityHostId(0)}?${fb}`, {}, 16],
      ['page 1', `${base}/v1/bookings?limit=100`, { authorization: `Bearer ${BOOKINGS_KEY}` }, 8],
      ['deep page', `${base}/v1/bookings?limit=100&cursor=${cursor}`, { authorization: `Bearer ${BOOKINGS_KEY}` }, 8],
    ];
    for (const [, url, h, connections] of gets) await run({ url, headers: h, connections, duration: 1 });
    const measured: Visit['rounds'] = {};
    const getMeter = cpuMeter(pool, service);
    for (let i = 0; i < rounds; i++) {
      for (const [name, url, h, connections] of gets) {
        const from = await getMeter.read();
        const { result: r, responses: answered } = await runTimed({ url, headers: h, connections, duration: SECONDS });
        const bad = r.non2xx + r.errors;
        if (bad > 0) throw new Error(`${name}: ${bad} answers were not 2xx`);
        (measured[name] ??= []).push({
          ...r,
          ...cpuPer(from, await getMeter.read(), r.requests.total || 1),
          times: answered.map((a) => a.ms),
        });
      }
    }
    getMeter.stop();
    return {
      result,
      seconds,
      responses,
      cpu: cpuPer(before, after, 1),
      walBytes,
      buffers: { hit: buffersTo.hit - buffersFrom.hit, read: buffersTo.read - buffersFrom.read },
      routingMs,
      rounds: measured,
      rss: memoryOf(service.pid),
      deepPage,
    };
  } finally {
    await stop(service);
  }
}

/** A size's figures from all its visits: the creates' responses and costs pooled, each GET's median round. */
async function summarize(t: Target): Promise<Measured> {
  const vs = t.visits;
  const sum = (f: (v: Visit) => number) => vs.reduce((n, v) => n + f(v), 0);
  const created = sum((v) => v.result['2xx']) || 1;
  const times = vs.flatMap((v) => v.responses.map((r) => r.ms)).sort((a, b) => a - b);
  const routing = vs.flatMap((v) => v.routingMs).sort((a, b) => a - b);
  const gets: Measured['gets'] = {};
  for (const name of Object.keys(vs[0].rounds)) {
    const rs = vs.flatMap((v) => v.rounds[name]);
    const mean = (f: (r: (typeof rs)[number]) => number) => rs.reduce((n, r) => n + f(r), 0) / rs.length;
    // the rate from the median round; latencies from every round's responses, pooled as the
    // creates' are: one round's p99 is its few slowest answers, a stall of the machine's as often
    const times = rs.flatMap((r) => r.times).sort((a, b) => a - b);
    const median = medianRound(rs);
    gets[name] = {
      ...median,
      latency: {
        ...median.latency,
        p50: Math.round(percentile(times, 50) * 10) / 10,
        p99: Math.round(percentile(times, 99) * 10) / 10,
        mean: Math.round((times.reduce((n, t) => n + t, 0) / (times.length || 1)) * 100) / 100,
      },
      rounds: rs.map((r) => Math.round(r.requests.average)),
      service: mean((r) => r.service),
      pg: mean((r) => r.pg),
    };
  }
  return {
    size: t.size,
    bookings: t.bookings,
    loadSeconds: t.loadSeconds,
    deepPage: vs.at(-1)!.deepPage,
    create: {
      rate: created / sum((v) => v.seconds),
      p50: Math.round(percentile(times, 50)),
      p99: Math.round(percentile(times, 99)),
      failed: sum((v) => v.result.non2xx + v.result.errors),
      conflicts: sum((v) => conflictsOf(v.result)),
      service: sum((v) => v.cpu.service) / created,
      pg: sum((v) => v.cpu.pg) / created,
      walKb: sum((v) => v.walBytes) / 1024 / created,
    },
    createTimelines: vs.map((v) => timeline(v.responses, 10)),
    buffers: { hit: sum((v) => v.buffers.hit) / created, read: sum((v) => v.buffers.read) / created },
    routing: { p50: Math.round(percentile(routing, 50)), p99: Math.round(percentile(routing, 99)) },
    gets,
    rss: { now: vs.at(-1)!.rss.now, peak: Math.max(...vs.map((v) => v.rss.peak)) },
    sizes: await largest(t.pool),
    tableBytes: {},
  };
}

/** The total size (indexes and TOAST included) of the named tables, in bytes; a table not there counts 0. */
async function tableBytes(pool: Pool, names: string[]): Promise<Record<string, number>> {
  const r = await pool.query(
    `select n.name, coalesce(pg_total_relation_size(to_regclass('public.' || quote_ident(n.name))), 0) as bytes from unnest($1::text[]) as n(name)`,
    [names],
  );
  return Object.fromEntries(r.rows.map((x) => [x.name as string, Number(x.bytes)]));
}

/** Rows deleted so far from the retained tables (their statistics counters; the pause lets the last second's arrive). */
async function deletedRows(): Promise<number> {
  await sleep(1500);
  const r = await db.pool.query('select coalesce(sum(n_tup_del), 0) as n from pg_stat_user_tables where relname = any($1)', [RETAINED]);
  return Number(r.rows[0].n);
}

/**
 * Samples, every 100 ms, the service's backends waiting on a lock, by wait event. 'object' is
 * the commit-time NOTIFY queue lock every create takes (docs/scaling.md); the rest are row,
 * transaction and relation locks, which a retention batch holding locks for long would show.
 */
function lockWaits() {
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = (
        await db.pool.query(
          `select wait_event as e, count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid() group by 1`,
        )
      ).rows as { e: string; n: number }[];
      samples++;
      for (const r of rows) counts.set(r.e, (counts.get(r.e) ?? 0) + r.n);
      await sleep(100);
    }
  })();
  return {
    async stop(): Promise<string> {
      running = false;
      await loop;
      const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([e, n]) => `${e} ${(n / samples).toFixed(2)}`);
      return `${samples} samples; backends waiting on a lock, mean per sample: ${parts.join(', ') || 'none'}`;
    },
  };
}

/**
 * Retention under live traffic, at the largest size: the same creates on one fresh `serve` with
 * the default retention, first with no retention running, then while one enforce-retention run
 * (added as graphile-worker's cron would add it) works off the generated backlog.
 *
 * `serve`'s own crontab adds a run every 10 minutes. Until the bench adds its run, the bench holds
 * the lock a run takes (RETENTION_LOCK), so a tick in the meantime does nothing: otherwise a run
 * started by a tick could work through the quiet creates, and the bench's own run, finding it
 * under way, would do nothing, leaving the figures to whatever was left of the tick's run (once
 * 1.38 M rows in 44.5 s, against 3.42 M in a whole run's 120 s).
 */
async function retentionUnderTraffic(body: () => string): Promise<void> {
  // minutes have passed since the last load's settle(): without this the calendars' syncs fall due within the step
  await markCalendarsTried(db.pool);
  await db.pool.query('checkpoint');
  const { service, base } = await startServe(db.url, { FREEBUSY_CACHE: 'off' });
  const holder = await db.pool.connect();
  let held = false;
  try {
    // waits for a tick's run the serve may have started already
    await holder.query('select pg_advisory_lock($1)', [RETENTION_LOCK]);
    held = true;
    const creates = createsOn(base, body);
    await creates(WARM_CREATES, 8);
    await waitRouted(db.pool, 'org_bench');
    await waitDrained(db.pool);
    const phase = async () => {
      const waits = lockWaits();
      const meter = cpuMeter(db.pool, service);
      const before = await meter.read();
      const { result, seconds } = await creates(CREATES, 16);
      const cpu = cpuPer(before, await meter.read(), result['2xx'] || 1);
      meter.stop();
      const locks = await waits.stop();
      await waitRouted(db.pool, 'org_bench');
      return { result, seconds, cpu, locks };
    };
    const quiet = await phase();
    await waitDrained(db.pool);
    const deletedFrom = await deletedRows();
    await holder.query('select pg_advisory_unlock($1)', [RETENTION_LOCK]);
    held = false;
    const started = performance.now();
    await db.pool.query(`select graphile_worker.add_job('enforce-retention')`);
    // the run ends by itself within its 2-minute budget; its end is watched while the creates run
    const runEnded = (async () => {
      for (;;) {
        const left = (
          await db.pool.query(`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'enforce-retention'`)
        ).rows[0].n as number;
        if (left === 0) return (performance.now() - started) / 1000;
        if (performance.now() - started > 300_000) throw new Error('enforce-retention still running after 5 minutes');
        await sleep(100);
      }
    })();
    const during = await phase();
    const createsEnded = (performance.now() - started) / 1000;
    const runSeconds = await runEnded;
    const deleted = (await deletedRows()) - deletedFrom;
    const row = (label: string, p: typeof quiet) => ({
      measure: label,
      'req/s': Math.round(p.result['2xx'] / p.seconds),
      'p50 ms': p.result.latency.p50,
      'p99 ms': p.result.latency.p99,
      note:
        `${p.result.non2xx + p.result.errors - conflictsOf(p.result)} failed (neither 201 nor 409); ` +
        `CPU per booking: service ${p.cpu.service.toFixed(2)} ms, PostgreSQL ${p.cpu.pg.toFixed(2)} ms; ${p.locks}`,
    });
    console.log(`\n## retention under live traffic (${kilo(results.at(-1)!.size)}; one serve with the default retention of 30 days)`);
    console.table([row('POST /bookings, no retention running', quiet), row('POST /bookings, while enforce-retention runs', during)]);
    console.log(
      `enforce-retention: ${kilo(deleted)} rows deleted in ${runSeconds.toFixed(1)} s; the creates ran from its start for ` +
        `${createsEnded.toFixed(1)} s; create p50 ${(during.result.latency.p50 / quiet.result.latency.p50).toFixed(2)}×, ` +
        `p99 ${(during.result.latency.p99 / quiet.result.latency.p99).toFixed(2)}× the quiet run's`,
    );
  } finally {
    if (held) await holder.query('select pg_advisory_unlock($1)', [RETENTION_LOCK]);
    holder.release();
    await stop(service);
  }
}

/**
 * The database's buffer counters. Backends report them when a transaction ends, at most once a
 * second, and when idle: the pause lets the last second's reach pg_stat_database. The creates'
 * window so includes a little of routing's tail, which runs alongside them anyway.
 */
async function buffersOf(pool: Pool): Promise<{ hit: number; read: number }> {
  await sleep(1500);
  const r = (await pool.query('select blks_hit, blks_read from pg_stat_database where datname = current_database()')).rows[0];
  return { hit: Number(r.blks_hit), read: Number(r.blks_read) };
}

/** Resident and peak resident memory of a process, in MB (zeros where /proc is not there). */
function memoryOf(pid: number | undefined): { now: number; peak: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return { now: 0, peak: 0 };
  }
}

function printSize(m: Measured): void {
  console.log(`\n## ${kilo(m.size)} generated bookings (${m.bookings} in all at load; ${VISITS} visit${VISITS === 1 ? '' : 's'})`);
  const g = (name: string, label: string) => {
    const r = m.gets[name];
    return {
      measure: label,
      'req/s': Math.round(r.requests.average),
      'p50 ms': r.latency.p50,
      'p99 ms': r.latency.p99,
      note: `rounds ${r.rounds.join(' / ')}; CPU per request: service ${r.service.toFixed(2)} ms, PostgreSQL ${r.pg.toFixed(2)} ms`,
    };
  };
  console.table([
    {
      measure: 'POST /bookings, distinct slots',
      'req/s': Math.round(m.create.rate),
      'p50 ms': m.create.p50,
      'p99 ms': m.create.p99,
      note:
        `${CREATES} creates in ${VISITS} visit${VISITS === 1 ? '' : 's'}, 16 connections, ${m.create.failed} not 201 (${m.create.conflicts} of them 409: slots every host's calendar holds); CPU per booking: service ${m.create.service.toFixed(2)} ms, ` +
        `PostgreSQL ${m.create.pg.toFixed(2)} ms; WAL per booking ${m.create.walKb.toFixed(1)} KB; ` +
        `buffers per booking: ${m.buffers.hit.toFixed(0)} hit, ${m.buffers.read.toFixed(1)} read`,
    },
    {
      measure: 'DRAFT → SCHEDULED under that load',
      'req/s': '',
      'p50 ms': Math.round(m.routing.p50),
      'p99 ms': Math.round(m.routing.p99),
      note: '',
    },
    g('availability', 'GET /v1/availability uncached (RR, 20 hosts, 14 days)'),
    g('freebusy', 'GET /v1/freebusy uncached (7 days, 30 min)'),
    g('page 1', 'GET /v1/bookings page 1 (limit 100)'),
    g('deep page', `GET /v1/bookings page ${m.deepPage.toLocaleString('en')}`),
  ]);
  for (const [i, tl] of m.createTimelines.entries()) {
    console.log(
      `visit ${i + 1}'s creates by tenth of their run: p99 ${tl.map((t) => (t.n ? Math.round(t.p99) : '-')).join(' / ')} ms (${tl.map((t) => t.n).join(' / ')} creates)`,
    );
  }
  console.log(`serve: RSS ${m.rss.now.toFixed(0)} MB at the end, peak ${m.rss.peak.toFixed(0)} MB`);
  console.log(`largest tables: ${m.sizes.tables.map((t) => `${t.name} ${mb(t.bytes)} (${kilo(t.rows)} rows)`).join(', ')}`);
  console.log(`largest indexes: ${m.sizes.indexes.map((t) => `${t.name} ${mb(t.bytes)}`).join(', ')}`);
}

/** Every metric against size, and the largest size against the smallest; latencies should stay within ±20 %. */
function printCurve(all: Measured[], blocks: number | undefined): void {
  const first = all[0];
  const last = all.at(-1)!;
  type Row = [string, (m: Measured) => number, 'latency' | 'rate' | 'info'];
  const rows: Row[] = [
    ['bookings in the database', (m) => m.bookings, 'info'],
    ['creates/s', (m) => m.create.rate, 'rate'],
    ['create p50 ms', (m) => m.create.p50, 'latency'],
    ['create p99 ms', (m) => m.create.p99, 'latency'],
    ['CPU per create, service ms', (m) => m.create.service, 'info'],
    ['CPU per create, PostgreSQL ms', (m) => m.create.pg, 'info'],
    ['WAL per create, KB', (m) => m.create.walKb, 'info'],
    ['buffers hit per create', (m) => m.buffers.hit, 'info'],
    ['buffers read per create (outside shared_buffers)', (m) => m.buffers.read, 'info'],
    ['DRAFT → SCHEDULED p50 ms', (m) => m.routing.p50, 'latency'],
    ['DRAFT → SCHEDULED p99 ms', (m) => m.routing.p99, 'latency'],
    ['availability uncached req/s', (m) => m.gets.availability.requests.average, 'rate'],
    ['availability uncached p50 ms', (m) => m.gets.availability.latency.p50, 'latency'],
    ['availability uncached p99 ms', (m) => m.gets.availability.latency.p99, 'latency'],
    ['free/busy uncached req/s', (m) => m.gets.freebusy.requests.average, 'rate'],
    ['free/busy uncached p50 ms', (m) => m.gets.freebusy.latency.p50, 'latency'],
    ['free/busy uncached p99 ms', (m) => m.gets.freebusy.latency.p99, 'latency'],
    ['list page 1 req/s', (m) => m.gets['page 1'].requests.average, 'rate'],
    ['list page 1 mean ms', (m) => m.gets['page 1'].latency.mean, 'latency'],
    ['list deep page req/s', (m) => m.gets['deep page'].requests.average, 'rate'],
    ['list deep page mean ms', (m) => m.gets['deep page'].latency.mean, 'latency'],
    ['list deep page number', (m) => m.deepPage, 'info'],
    ['CPU per availability request, service + PostgreSQL ms', (m) => m.gets.availability.service + m.gets.availability.pg, 'info'],
    ['CPU per list page 1, service + PostgreSQL ms', (m) => m.gets['page 1'].service + m.gets['page 1'].pg, 'info'],
    ['serve peak RSS MB', (m) => m.rss.peak, 'info'],
  ];
  const table = rows.map(([name, f, kind]) => {
    const row: Record<string, string> = { metric: name };
    for (const m of all) row[kilo(m.size)] = f(m) >= 100 ? String(Math.round(f(m))) : f(m).toFixed(2);
    const ratio = f(first) > 0 ? f(last) / f(first) : NaN;
    row[`${kilo(last.size)} / ${kilo(first.size)}`] = Number.isFinite(ratio) ? ratio.toFixed(2) : '';
    row.target = kind === 'latency' ? (ratio >= 0.8 && ratio <= 1.2 ? 'within ±20 %' : 'OUTSIDE ±20 %') : '';
    return row;
  });
  const names = Object.keys(last.tableBytes).sort((a, b) => last.tableBytes[b] - last.tableBytes[a]);
  for (const name of names.slice(0, 8)) {
    const row: Record<string, string> = { metric: `table ${name} (with indexes, TOAST)` };
    for (const m of all) row[kilo(m.size)] = mb(m.tableBytes[name] ?? 0);
    table.push(row);
  }
  console.log(
    `\n## the curve (${blocks === undefined ? 'no calendars connected' : `${blocks} external busy blocks`}; ` +
      'the machine is shared: compare within this run, and read latencies as ratios)',
  );
  console.table(table);
}
