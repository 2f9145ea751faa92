/**
 * Calendar sync from a real Radicale: `npm run bench -- calendar-sync`
 *   1. A full sync of CALENDARS calendars × EVENTS events (a third of them weekly series), from
 *      a Radicale whose storage is written before it starts and whose item cache is warmed
 *      first (Radicale parses every event once on its first read: that is the server's cost,
 *      not ours), synced by SYNC_CONCURRENCY syncs at once as a worker's job slots would.
 *   2. The same calendars synced again with nothing changed: requests per calendar (target 1).
 * BENCH_CALENDARS (default 200) and BENCH_EVENTS (default 300) change the size.
 */
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { MemoryFreeBusyCache } from '../src/domain/availability/freebusy-cache.ts';
import { CalDavClient } from '../src/domain/calendars/caldav.ts';
import type { SyncOutcome } from '../src/domain/calendars/sync.ts';
import { syncCalendar } from '../src/domain/calendars/sync.ts';
import { loadSeed } from '../src/domain/seed/load.ts';
import { validateSeed } from '../src/domain/seed/validate.ts';
import { calendarSeed, vevent } from '../test/helpers/calendar-fixtures.ts';
import { skipWithoutRadicale, startRadicale } from '../test/helpers/radicale.ts';
import { benchDatabase } from './support.ts';

const CALENDARS = Number(process.env.BENCH_CALENDARS ?? 200);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const SYNC_CONCURRENCY = 8;
const DAY = 86_400_000;

const missing = skipWithoutRadicale();
if (missing) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}

function calendar(c: number): Record<string, string> {
  const events: Record<string, string> = {};
  const base = Date.now() + DAY;
  for (let i = 0; i < EVENTS; i++) {
    const start = base + Math.floor(i / 5) * DAY + (i % 5) * 2 * 3_600_000;
    const uid = `c${c}-e${i}`;
    events[`${uid}.ics`] = vevent(
      uid,
      new Date(start).toISOString(),
      new Date(start + 3_600_000).toISOString(),
      i % 3 === 0 ? ['RRULE:FREQ=WEEKLY;COUNT=10'] : [],
    );
  }
  return events;
}

async function pooled<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

const preload: Record<string, { events: Record<string, string> }> = {};
for (let c = 0; c < CALENDARS; c++) preload[`cal${c}`] = { events: calendar(c) };
const radicale = await startRadicale({ users: { amara: 'pw' }, preload: { amara: preload } });
const db = await benchDatabase();
try {
  const ids = Array.from({ length: CALENDARS }, (_, c) => `cal_bench_${c}`);
  const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', CALENDAR_REQUEST_TIMEOUT_MS: '120000' });
  await loadSeed(
    db.pool,
    validateSeed(
      calendarSeed(
        ids.map((id, c) => ({
          id,
          url: radicale.calendarUrl('amara', `cal${c}`),
          username: 'amara',
          password: 'pw',
          primary: false,
        })),
      ),
    ),
    { secretKey: config.webhookSecretKey },
  );

  let t = performance.now();
  const warm = new CalDavClient({ username: 'amara', password: 'pw' }, { timeoutMs: 600_000 });
  await pooled([...Array(CALENDARS).keys()], 2, async (c) => {
    await warm.propfind(radicale.calendarUrl('amara', `cal${c}`), 1, '<d:getetag/>');
  });
  console.log(`Radicale's own first read of ${CALENDARS * EVENTS} events (not counted below): ${Math.round(performance.now() - t)} ms`);

  const deps = { db: db.pool, config, now: () => new Date(), log: pino({ level: 'silent' }), freebusyCache: new MemoryFreeBusyCache() };
  const run = async () => {
    const outcomes: SyncOutcome[] = [];
    const started = performance.now();
    await pooled(ids, SYNC_CONCURRENCY, async (id) => void outcomes.push(await syncCalendar(deps, id)));
    const failed = outcomes.filter((o) => o.status !== 'SUCCESS');
    if (failed.length) throw new Error(`${failed.length} syncs failed: ${failed[0].error}`);
    return { ms: performance.now() - started, outcomes };
  };
  const full = await run();
  const events = full.outcomes.reduce((n, o) => n + o.events, 0);
  const blocks = full.outcomes.reduce((n, o) => n + o.busyBlocks, 0);
  const again = await run();
  const requests = again.outcomes.reduce((n, o) => n + o.requests, 0);
  t = Math.round(full.ms);
  console.log(`\n| measure | result |\n|---|---|`);
  console.log(
    `| full sync, ${CALENDARS} calendars × ${EVENTS} events (a third weekly ×10), ${SYNC_CONCURRENCY} at once | ${t} ms, ${Math.round(events / (full.ms / 1000))} events/s, ${blocks} busy blocks, ${full.outcomes.reduce((n, o) => n + o.requests, 0) / CALENDARS} requests/calendar |`,
  );
  console.log(`| incremental sync, nothing changed | ${Math.round(again.ms)} ms, ${requests / CALENDARS} requests/calendar (target 1) |`);
} finally {
  await db.drop();
  await radicale.stop();
}
