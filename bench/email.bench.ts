/**
 * Booking emails: the cost enqueueBookingEmail adds to a booking change's transaction, and how
 * fast the worker drains the outbox, logged (no SMTP_URL) and over SMTP to a local smtp-server.
 * `npm run bench -- email`
 */
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import type { Pool } from '../src/db/pool.ts';
import { transaction } from '../src/db/pool.ts';
import { MemoryFreeBusyCache } from '../src/domain/availability/freebusy-cache.ts';
import { enqueueBookingEmail } from '../src/domain/email/enqueue.ts';
import { loadSeed } from '../src/domain/seed/load.ts';
import { validateSeed } from '../src/domain/seed/validate.ts';
import { startWorker } from '../src/jobs/worker.ts';
import { insertBooking } from '../test/domain/email/booking-rows.ts';
import { MEMBERS, testSeed } from '../test/helpers/fixtures.ts';
import { startSmtpReceiver } from '../test/helpers/smtp-receiver.ts';
import { percentile, benchDatabase } from './support.ts';

const BOOKINGS_PER_PHASE = 500;
const LANES = 8;

async function bookings(pool: Pool, n: number, dayOffset: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const start = new Date(Date.UTC(2027, 0, 1 + dayOffset) + i * 3_600_000).toISOString();
    ids.push(await insertBooking(pool, { start, assignedToId: MEMBERS.amara }));
  }
  return ids;
}

/** Enqueues 'scheduled' for every id over LANES concurrent transactions; per-call latencies. */
async function enqueueAll(pool: Pool, ids: string[]): Promise<{ ms: number[]; wall: number; cpuMs: number }> {
  const ms: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (next < ids.length) {
        const id = ids[next++];
        const s = performance.now();
        await transaction(pool, (tx) => enqueueBookingEmail(tx, { bookingId: id, kind: 'scheduled' }));
        ms.push(performance.now() - s);
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { ms: ms.sort((a, b) => a - b), wall: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function drain(pool: Pool, expected: number, env: Record<string, string>): Promise<number> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const t0 = performance.now();
  const runner = await startWorker({
    db: pool,
    config,
    now: () => new Date(),
    log: pino({ level: 'silent' }),
    freebusyCache: new MemoryFreeBusyCache(() => Date.now()),
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const r = await pool.query(`select count(*) as n from email_outbox where status in ('sent', 'logged')`);
    if (r.rows[0].n >= expected) break;
    if (Date.now() > deadline) throw new Error(`only ${r.rows[0].n} of ${expected} emails done after 120 s`);
    await new Promise((res) => setTimeout(res, 20));
  }
  const wall = performance.now() - t0;
  await runner.stop();
  return wall;
}

const db = await benchDatabase();
await loadSeed(db.pool, validateSeed(testSeed()));
const smtp = await startSmtpReceiver();
const rows: string[][] = [];
try {
  let done = 0;
  for (const [phase, env] of [
    ['logged (no SMTP_URL)', {}],
    ['SMTP to local smtp-server', { SMTP_URL: smtp.url }],
  ] as const) {
    const ids = await bookings(db.pool, BOOKINGS_PER_PHASE, done === 0 ? 0 : 60);
    const { ms, wall, cpuMs } = await enqueueAll(db.pool, ids);
    done += ids.length * 2; // attendee + host
    const drainMs = await drain(db.pool, done, env);
    rows.push([
      phase,
      String(ids.length),
      (ids.length / (wall / 1000)).toFixed(0),
      percentile(ms, 50).toFixed(1),
      percentile(ms, 99).toFixed(1),
      (cpuMs / ids.length).toFixed(2),
      String(ids.length * 2),
      ((ids.length * 2) / (drainMs / 1000)).toFixed(0),
    ]);
  }
} finally {
  await smtp.close();
  await db.drop();
}

const head = ['phase', 'changes', 'enqueue tx/s', 'enqueue p50 ms', 'enqueue p99 ms', 'node CPU ms/change', 'emails', 'sent/s'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`${LANES} concurrent transactions; each change = 1 booking 'scheduled' (attendee + host, ICS)`);
console.log(line(head));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
