import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Logger } from 'pino';
import type { Config } from '../../src/config.ts';
import { loadConfig } from '../../src/config.ts';
import { announceBusyChange, listenForBusyChanges } from '../../src/db/busy-changes.ts';
import { CalendarBusyCache } from '../../src/domain/availability/calendar-busy-cache.ts';
import { applyBusyChange, forgetUnheardChanges } from '../../src/domain/availability/announced-changes.ts';
import { MemoryFreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import { clearKeyCache } from '../../src/domain/auth/keys.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { RateLimitStore } from '../../src/http/rate-limit-store.ts';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.ts';
import { buildServer } from '../../src/http/server.ts';
import type { JobWorker } from '../../src/jobs/worker.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import type { TestDatabase } from './db.ts';
import { createTestDatabase } from './db.ts';
import type { SeedJson } from './fixtures.ts';
import { testSeed } from './fixtures.ts';

export interface TestApp {
  url: string;
  db: TestDatabase;
  app: FastifyInstance;
  config: Config;
  /** The injected clock: tests may move it. */
  clock: { now: Date };
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /**
   * Resolves once this app has heard every busy-time announcement committed before the call
   * (a sync's, from any process): PostgreSQL delivers notifications in commit order, so a marker
   * announced now arrives after them. GET /availability's calendar blocks are then current.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON.stringify(body). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface StartOptions {
  seed?: SeedJson | null;
  env?: Record<string, string>;
  /** Run a job worker in the same process (routing, webhooks, email). */
  worker?: boolean;
  now?: Date;
  rateLimitStore?: RateLimitStore;
  /** The app's and the worker's logger (default: none). */
  log?: Logger;
}

/** The real app on a real port, over a fresh database for this test file. */
export async function startApp(opts: StartOptions = {}): Promise<TestApp> {
  clearKeyCache();
  const db = await createTestDatabase();
  const config = loadConfig({
    RATE_LIMIT_TEST_PER_MINUTE: '100000',
    RATE_LIMIT_LIVE_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'silent',
    ...opts.env,
    DATABASE_URL: db.url,
  });
  if (opts.seed !== null) {
    try {
      await loadSeed(db.pool, validateSeed(opts.seed ?? testSeed()), { secretKey: config.webhookSecretKey });
    } catch (err) {
      // a refused fixture fails the file at once instead of leaving its pool open (the process
      // would never exit, and the whole run would wait on it)
      await db.drop();
      throw err;
    }
  }
  const clock = { now: opts.now ?? new Date() };
  const fixed = opts.now !== undefined;
  const now = () => (fixed ? new Date(clock.now) : new Date());
  const freebusyCache = new MemoryFreeBusyCache(() => now().getTime());
  const calendarBusy = new CalendarBusyCache(() => now().getTime());
  const app = await buildServer({
    deps: { db: db.pool, config, now, freebusyCache, calendarBusy },
    rateLimitStore: opts.rateLimitStore ?? new MemoryRateLimitStore(),
    ...(opts.log ? { loggerInstance: opts.log } : { logger: false }),
  });
  // as `serve` does: a calendar sync or a booking change in another process drops this
  // process's cached answers
  let listening!: () => void;
  const ready = new Promise<void>((r) => (listening = r));
  const markers = new Map<string, () => void>();
  const busyCaches = { calendarBusy, freebusyCache };
  const busyChanges = listenForBusyChanges(
    db.url,
    (change) => {
      if (change.kind === 'calendar') for (const id of change.memberIds) markers.get(id)?.();
      applyBusyChange(busyCaches, change);
    },
    pino({ level: 'silent' }),
    () => {
      forgetUnheardChanges(busyCaches);
      listening();
    },
  );
  await ready;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  let runner: JobWorker | undefined;
  if (opts.worker) runner = await startWorker({ db: db.pool, config, now, log: opts.log ?? pino({ level: 'silent' }), freebusyCache });

  async function request(method: string, path: string, ro: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...(ro.headers ?? {}) };
    const key = ro.key === undefined ? undefined : ro.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (ro.rawBody !== undefined) body = ro.rawBody;
    else if (ro.body !== undefined) body = JSON.stringify(ro.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: callers read .text
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  let settles = 0;
  async function settle(): Promise<void> {
    const marker = `settle-${++settles}`;
    const heard = new Promise<void>((r) => markers.set(marker, r));
    await announceBusyChange(db.pool, [marker]);
    await heard;
    markers.delete(marker);
  }

  return {
    url,
    db,
    app,
    config,
    clock,
    settle,
    request,
    async close() {
      if (runner) await runner.stop();
      await busyChanges.close();
      await app.close();
      await db.drop();
    },
  };
}
