/**
 * Webhook delivery: one `worker` process (its own Node process, as in production) delivering
 * booking events to a local HTTPS receiver. Reports events/s with a backlog and with a steady
 * stream, and the latency from the booking change's commit to the first attempt's arrival.
 * `npm run bench -- webhooks`   (WORKER_CONCURRENCY: the service default, 64; WORKER_NODE_ARGS, e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof", is passed to the worker process)
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { loadSeed } from '../src/domain/seed/load.ts';
import { validateSeed } from '../src/domain/seed/validate.ts';
import { createWebhook } from '../src/domain/webhooks/manage.ts';
import { testSeed } from '../test/helpers/fixtures.ts';
import { startHttpsReceiver } from '../test/helpers/https-receiver.ts';
import { recordBookingEvent } from '../test/helpers/webhook-events.ts';
import { percentile, ROOT, sleep, benchDatabase, stopWithBench } from './support.ts';

const BACKLOG = 3000;
const STREAM = 2000;
const LATENCY_SAMPLES = 300;
const LANES = 8;
const BIN = path.join(ROOT, 'bin/booking-service.js');

const db = await benchDatabase();
await loadSeed(db.pool, validateSeed(testSeed()));
const rx = await startHttpsReceiver();
const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'silent' });
await createWebhook(
  db.pool,
  { organizationId: 'org_northwind', mode: 'test' },
  { url: `${rx.origin}/bench`, events: ['BOOKING_CREATED'] },
  config,
  new Date(),
);

// booking id → when its change committed; arrival times by booking id
const committed = new Map<string, number>();
const arrived = new Map<string, number>();
rx.reply = (r) => {
  arrived.set((JSON.parse(r.body) as { data: { id: string } }).data.id, performance.timeOrigin + performance.now());
  return { status: 200 };
};
const clock = () => performance.timeOrigin + performance.now();

async function produce(n: number, lanes: number, pauseMs = 0): Promise<number> {
  let left = n;
  const t0 = clock();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (left-- > 0) {
        const { booking } = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
        committed.set(booking.id, clock());
        if (pauseMs) await sleep(pauseMs);
      }
    }),
  );
  return clock() - t0;
}

async function waitForAll(timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (arrived.size < committed.size) {
    if (Date.now() > deadline) throw new Error(`only ${arrived.size} of ${committed.size} events arrived`);
    await sleep(20);
  }
}

/** Starts the worker process; `ready` resolves when it logs "worker ready" (migrated, queue running). */
function startWorkerProcess(): { child: ChildProcess; ready: Promise<number> } {
  const child = spawn(process.execPath, [...(process.env.WORKER_NODE_ARGS?.split(' ') ?? []), BIN, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: rx.caFile,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  stopWithBench(child);
  const ready = new Promise<number>((resolve) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (seen.includes('worker ready')) return;
      seen += chunk.toString('utf8');
      if (seen.includes('worker ready')) resolve(clock());
    });
  });
  return { child, ready };
}

async function workerReady(): Promise<void> {
  // ready when it has delivered a warm-up event
  await produce(1, 1);
  await waitForAll(30_000);
}

const rows: string[][] = [];

// 1. backlog: events committed while no worker runs, then one worker drains them
await produce(BACKLOG, LANES);
const spawned = clock();
const started = startWorkerProcess();
const worker: ChildProcess = started.child;
await waitForAll();
const readyAt = await started.ready;
const lastArrival = Math.max(...arrived.values());
rows.push([
  'backlog drain',
  `${BACKLOG} events`,
  `${Math.round(BACKLOG / ((lastArrival - readyAt) / 1000))} events/s`,
  `from "worker ready" to the last delivery (start-up took ${Math.round(readyAt - spawned)} ms)`,
]);

// 2. steady stream: producers commit as fast as they can while the worker delivers
committed.clear();
arrived.clear();
const streamStart = clock();
const produceMs = await produce(STREAM, LANES);
await waitForAll();
const streamEnd = Math.max(...arrived.values());
rows.push([
  'stream',
  `${STREAM} events`,
  `${Math.round(STREAM / ((streamEnd - streamStart) / 1000))} events/s`,
  `bounded by the producers (${LANES} lanes, same process as the receiver): ${Math.round(STREAM / (produceMs / 1000))} commits/s`,
]);

// 3. latency at a moderate rate: commit → first attempt at the receiver
committed.clear();
arrived.clear();
await workerReady();
committed.clear();
arrived.clear();
await produce(LATENCY_SAMPLES, 2, 5);
await waitForAll();
const lat = [...committed].map(([id, at]) => arrived.get(id)! - at).sort((a, b) => a - b);
rows.push([
  'commit → first attempt',
  `${LATENCY_SAMPLES} events`,
  `p50 ${percentile(lat, 50).toFixed(1)} ms, p99 ${percentile(lat, 99).toFixed(1)} ms`,
  `max ${lat[lat.length - 1]!.toFixed(1)} ms`,
]);

// the last success records are written just after the receiver answered
for (let i = 0; i < 100; i++) {
  const pending = await db.pool.query(`select count(*)::int as n from webhook_deliveries where status = 'pending'`);
  if (pending.rows[0].n === 0) break;
  await sleep(50);
}
const delivered = await db.pool.query(`select status, count(*)::int as n from webhook_deliveries group by status order by status`);
worker.kill('SIGTERM');
await new Promise((r) => worker.once('exit', r));
await rx.close();
await db.drop();

const widths = [0, 1, 2, 3].map((i) => Math.max(...[['phase', 'size', 'result', 'note'], ...rows].map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(line(['phase', 'size', 'result', 'note']));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line(r));
console.log(
  `\ndelivery records: ${delivered.rows.map((r) => `${r.status} ${r.n}`).join(', ')}; targets: >= 500 events/s, p50 <= 50 ms, p99 <= 500 ms`,
);
