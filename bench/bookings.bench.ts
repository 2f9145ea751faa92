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
 * writes a CPU profile of the service; BENCH_CREATES_ONLY=1 stops after part 1; BENCH_STATS=1 prints the bench database's
 * counters at the end: transactions and tuples, time per database function, scans and writes per table and index)
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import type autocannon from 'autocannon';
import { encodeCursor } from '../src/domain/bookings/cursor.ts';
import { loadSeed } from '../src/domain/seed/load.ts';
import { validateSeed } from '../src/domain/seed/validate.ts';
import { testSeed } from '../test/helpers/fixtures.ts';
import {
  BOOKINGS_KEY as KEY,
  ROOT,
  addBookingsOrganization,
  cpuMeter,
  cpuPerBooking,
  createBodies,
  freePort,
  run,
  runTimed,
  sleep,
  startServe,
  waitDrained,
  waitRouted,
  waitUp,
  benchDatabase,
  stopWithBench,
} from './support.ts';

const CREATES = Number(process.env.BENCH_CREATES ?? 4000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CREATE_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const LIST_ROWS = 100_000;

const db = await benchDatabase();
// BENCH_STATS: PostgreSQL counts calls and time per function (plpgsql too) in the service's sessions, all opened after this
if (process.env.BENCH_STATS) await db.pool.query(`alter database "${new URL(db.url).pathname.slice(1)}" set track_functions = 'all'`);
await loadSeed(db.pool, validateSeed(addBookingsOrganization(testSeed())));
const children: ChildProcess[] = [];
const table: Record<string, string | number>[] = [];
try {
  const { service, base } = await startServe(db.url);
  children.push(service);
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

  // 1. creates on distinct slots, a 15-minute grid starting tomorrow (UTC)
  const body = createBodies();
  await run({
    url: `${base}/v1/bookings`,
    method: 'POST',
    headers,
    connections: 8,
    amount: 300,
    requests: [{ setupRequest: (r) => ({ ...r, body: body() }) }],
  });
  const meter = cpuMeter(db.pool, service);
  const cpuStart = await meter.read();
  const { result: created, seconds } = await runTimed({
    url: `${base}/v1/bookings`,
    method: 'POST',
    headers,
    connections: CREATE_CONNECTIONS,
    amount: CREATES,
    requests: [{ setupRequest: (r) => ({ ...r, body: body() }) }],
  });
  const cpuCreated = await meter.read();
  const non2xx = created.non2xx + created.errors;
  const rate = created['2xx'] / seconds;
  table.push({
    measure: 'POST /bookings, distinct slots',
    'req/s': Math.round(rate),
    'p50 ms': created.latency.p50,
    'p99 ms': created.latency.p99,
    note: `${created['2xx']} creates in ${seconds.toFixed(2)} s, ${CREATE_CONNECTIONS} connections, ${non2xx} not 201`,
  });

  await waitRouted(db.pool, 'org_bench');
  const routing = (
    await db.pool.query(
      `select percentile_cont(array[0.5, 0.99]) within group (order by extract(epoch from updated_at - created_at) * 1000) as p
       from bookings where organization_id = 'org_bench'`,
    )
  ).rows[0].p as number[];
  table.push({
    measure: 'DRAFT → SCHEDULED under that load',
    'req/s': '',
    'p50 ms': Math.round(routing[0]),
    'p99 ms': Math.round(routing[1]),
    note: 'create commit → routing commit',
  });

  // The serve process's worker may still have mail to send (fan-out too, where subscribed); GETs
  // measured while it churns through them would measure the worker, not the route (and the
  // bare route after it would get a quiet machine). So wait until the queue has drained.
  const drained = await waitDrained(db.pool);
  table.push({
    measure: 'job queue drained',
    'req/s': '',
    'p50 ms': '',
    'p99 ms': '',
    note: `${drained.toFixed(1)} s after the last booking was routed; the GETs below run on a drained queue`,
  });
  const cpuDrained = await meter.read();
  meter.stop();
  table.push({
    measure: 'cost of the creates',
    'req/s': '',
    'p50 ms': '',
    'p99 ms': '',
    note: `during the creates: ${cpuPerBooking(cpuStart, cpuCreated, CREATES)}`,
  });
  table.push({
    measure: 'cost incl. routing and mail',
    'req/s': '',
    'p50 ms': '',
    'p99 ms': '',
    note: `until the queue drained: ${cpuPerBooking(cpuStart, cpuDrained, CREATES)}`,
  });

  if (!process.env.BENCH_CREATES_ONLY) {
    // 2. GET by id vs a bare Fastify + pg route over the same rows
    const ids = (await db.pool.query(`select id from bookings where organization_id = 'org_bench' limit 1000`)).rows.map(
      (r) => r.id as string,
    );
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
    stopWithBench(bare);
    await waitUp(`http://127.0.0.1:${barePort}/bare/${ids[0]}`, bare);
    const pick = () => ids[Math.floor(Math.random() * ids.length)];
    const getOpts = (url: (id: string) => string): autocannon.Options => ({
      url: url(ids[0]),
      headers: { authorization: `Bearer ${KEY}` },
      connections: 16,
      duration: SECONDS,
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
    table.push({
      measure: 'GET /bookings/{id}',
      'req/s': Math.round(service1.requests.average),
      'p50 ms': service1.latency.p50,
      'p99 ms': service1.latency.p99,
      note: `${ratio} % of the bare route (target ≥ 60 %); rounds ${rounds(serviceRounds)}; ${serviceRounds.reduce((n, r) => n + r.non2xx, 0)} not 200`,
    });
    table.push({
      measure: 'bare Fastify + pg by primary key',
      'req/s': Math.round(bare1.requests.average),
      'p50 ms': bare1.latency.p50,
      'p99 ms': bare1.latency.p99,
      note: `no auth, no schema; rounds ${rounds(bareRounds)}`,
    });

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
    const total = (await db.pool.query(`select count(*)::int as n from bookings where organization_id = 'org_bench' and mode = 'test'`))
      .rows[0].n as number;
    const at = (
      await db.pool.query(
        `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as c from bookings
        where organization_id = 'org_bench' and mode = 'test' order by created_at desc, id desc offset $1 limit 1`,
        [999 * 100 - 1],
      )
    ).rows[0];
    const cursor = encodeURIComponent(encodeCursor({ createdAt: at.c, id: at.id }));
    const listOpts = (query: string): autocannon.Options => ({
      url: `${base}/v1/bookings?${query}`,
      headers: { authorization: `Bearer ${KEY}` },
      connections: 8,
      duration: SECONDS,
    });
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
    table.push({
      measure: `GET /bookings page 1 (of ${total})`,
      'req/s': Math.round(page1.requests.average),
      'p50 ms': page1.latency.p50,
      'p99 ms': page1.latency.p99,
      note: `limit 100; rounds ${rounds(firstRounds)}`,
    });
    table.push({
      measure: 'GET /bookings page 1,000',
      'req/s': Math.round(page1000.requests.average),
      'p50 ms': page1000.latency.p50,
      'p99 ms': page1000.latency.p99,
      note: `mean latency ${diff >= 0 ? '+' : ''}${diff} % vs page 1 (target ±20 %); rounds ${rounds(deepRounds)}`,
    });
  }
  console.table(table);
  if (process.env.BENCH_STATS) {
    // the service's sessions report their counters when idle (pgstat flushes at most once a second)
    await sleep(1000);
    const print = async (sql: string) => console.table((await db.pool.query(sql)).rows);
    await print(`select xact_commit, xact_rollback, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted
                   from pg_stat_database where datname = current_database()`);
    await print(`select schemaname || '.' || funcname as function, calls, round(total_time::numeric, 1) as total_ms,
                        round(self_time::numeric, 1) as self_ms
                   from pg_stat_user_functions order by self_time desc limit 25`);
    await print(`select schemaname || '.' || relname as table, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins as ins,
                        n_tup_upd as upd, n_tup_hot_upd as hot, n_tup_del as del, n_dead_tup as dead, n_live_tup as live
                   from pg_stat_user_tables where coalesce(idx_scan, 0) + seq_scan + n_tup_ins > 50 order by 1`);
    await print(`select schemaname || '.' || relname as table, indexrelname as index, idx_scan, idx_tup_read, idx_tup_fetch
                   from pg_stat_user_indexes where relid in (select relid from pg_stat_user_tables where n_tup_ins > 50) order by 1, 2`);
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
  await sleep(500);
  if (process.env.BENCH_KEEP_DB) console.log(`kept database ${db.url}`);
  else await db.drop();
}
