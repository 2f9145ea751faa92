import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Config } from './config.ts';
import { ConfigError, loadConfig } from './config.ts';
import { migrate } from './db/migrate.ts';
import { listenForConfigChanges } from './db/config-changes.ts';
import { createPool, isConnectionLoss, openConnections } from './db/pool.ts';
import { createKey } from './domain/auth/create-key.ts';
import { clearKeyCache } from './domain/auth/keys.ts';
import { KeyCreateError } from './domain/auth/create-key.ts';
import { CalendarBusyCache } from './domain/availability/calendar-busy-cache.ts';
import { createFreeBusyCache } from './domain/availability/freebusy-cache-factory.ts';
import { listenForBusyChanges } from './db/busy-changes.ts';
import { applyBusyChange, forgetUnheardChanges } from './domain/availability/announced-changes.ts';
import { connectedCalendars } from './db/queries/calendar-sync.ts';
import { connectCalendars } from './domain/calendars/connect.ts';
import { syncCalendar } from './domain/calendars/sync.ts';
import { isEmpty, loadSeed, organizationsPresent, readSeedFile } from './domain/seed/load.ts';
import type { SeedFile } from './domain/seed/validate.ts';
import { SeedError } from './domain/seed/validate.ts';
import { createRateLimitStore } from './http/rate-limit-store-factory.ts';
import { serveMetrics } from './http/metrics-server.ts';
import { buildServer } from './http/server.ts';
import { startWorker } from './jobs/worker.ts';
import { observePool } from './metrics.ts';
import type { Database } from './runtime.ts';
import { connectRedis } from './lib/redis-link.ts';
import { createLogger, openDatabase } from './runtime.ts';

/**
 * Connections of each long-running pool (the API's, the worker's) opened at start and kept
 * open however idle: a service with little traffic would otherwise meet a cold PostgreSQL
 * backend at nearly every request (src/db/pool.ts, IDLE_CLOSE_MS; docs/operations.md).
 */
const KEPT_CONNECTIONS = 4;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DEMO_FILE = path.join(ROOT, 'fixtures', 'demo.json');

const HELP: Record<string, string> = {
  main: `booking-service <command>

Commands:
  start            migrate, load fixtures/demo.json into an empty database, serve (what npm start runs)
  serve            migrate, then run the HTTP API and a job worker in this process
  worker           migrate, then run only the job worker (several may share one database)
  migrate          apply pending database migrations and exit
  seed FILE        load organizations, teams, members, event types, calendars and keys from FILE
  keys create      create an API key and print it once
  calendars connect  connect a member's CalDAV account (Nextcloud, iCloud, Fastmail, Radicale, ...)
  calendars sync   sync connected calendars now and print the result of each

Configuration comes from environment variables only; see README.md.
Run "booking-service <command> --help" for a command's options.`,
  start: `booking-service start\n\nMigrates, seeds fixtures/demo.json when the database is empty, prints the demo keys and the\nreference URL, then serves the API with a worker. Environment: see README.md.`,
  serve: `booking-service serve\n\nMigrates, then serves the HTTP API on HOST:PORT and runs a job worker in the same process.`,
  worker: `booking-service worker\n\nMigrates, then runs only the job worker (routing, webhook delivery, email, calendar sync).`,
  migrate: `booking-service migrate\n\nCreates the schema in an empty database, applies pending migrations and replaces the database
functions, under an advisory lock; a second run changes nothing.`,
  seed: `booking-service seed FILE\n\nLoads FILE (format: fixtures/demo.json). Idempotent: rows are matched by id and only changed\nvalues are written. A bad file is refused whole, naming the path of the bad value.`,
  keys: `booking-service keys create --org ORG_ID --name NAME --scopes SCOPE[,SCOPE...]
                          [--mode test|live] [--type secret|publishable] [--allowed-origins ORIGIN[,ORIGIN...]]

Creates an API key for the organization and prints it once (alone on stdout); only its hash
is stored. Defaults: --mode test, --type secret.
Also accepted: --organization/--organization-id for --org, --scope (repeatable) for --scopes,
--live/--test for --mode, --publishable/--secret or --kind for --type, --allowed-origin
(repeatable); lists may be comma- or space-separated.`,
  calendars: `booking-service calendars connect --org ORG --member MEMBER_ID --url URL --username USER --password-env VAR
                                   [--primary NAME]
booking-service calendars sync [--calendar ID]

connect: discovers the account's event calendars (current-user-principal, calendar-home-set,
collections holding events) from URL, which may be the server, the account or one calendar,
and records each as a calendar integration of the member, syncing it at once when a worker
runs. The password is read from the environment variable VAR (never from the command line)
and stored encrypted with WEBHOOK_SECRET_KEY. --primary picks the calendar bookings are
written to, by name (default: the first found). URL must be https (http only on loopback).

sync: syncs every connected calendar (or one) now and prints one line per calendar: status,
events read, busy blocks, duration. Exits 1 when a calendar failed.`,
};

function usage(command: string, code = 0): never {
  (code === 0 ? console.log : console.error)(HELP[command] ?? HELP.main);
  process.exit(code);
}

type Stoppable = { close(): Promise<void> };

let shuttingDown = false;

/** `parts()`: what has started by the time a signal comes, in the order to close it. */
function onShutdown(log: (msg: string) => void, parts: () => Promise<Stoppable[]>): void {
  const stop = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log(`received ${signal}, shutting down`);
    for (const part of await parts()) await part.close().catch((err) => console.error(err));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

async function withDatabase<T>(config: Config, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(config, 5);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function runServe(config: Config, opts: { api: boolean; demo: boolean }): Promise<void> {
  const startedAt = Date.now();
  const log = createLogger(config);
  if (config.webhookAllowPrivateTargets) {
    log.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may target private and loopback addresses (development and tests only)');
  }
  // The worker's pool: a job takes a connection only per statement or transaction, and the pool
  // opens them on demand (most slots are routing jobs waiting for the next batch, holding
  // none), so it may grow towards WORKER_CONCURRENCY only under a backlog of other jobs. Five
  // more for graphile-worker's LISTEN connection and its fetches.
  const parts: Stoppable[] = [];
  const opening = openDatabase(config, config.workerConcurrency + 5, KEPT_CONNECTIONS);
  // Before anything is awaited: a SIGTERM that found no handler would kill the process outright
  // (a supervisor may send one as soon as "ready" is printed, and the handlers used to come
  // after that line), and one during start-up stops what has started so far, the database last
  // (an embedded server that is still starting is waited for, then stopped).
  onShutdown(
    (m) => log.info(m),
    async () => {
      const started = await opening.catch(() => undefined);
      return started ? [...parts, started] : parts;
    },
  );
  // graphile-worker 0.17 leaves some promises unhandled when a query fails because its
  // connection was lost (returning its local queue, failing a job): Node would end the process,
  // API included, at a database blip. Those are logged; the worker replaces the pool that gave up
  // (src/jobs/worker.ts). Any other unhandled rejection still ends the process.
  process.on('unhandledRejection', (err) => {
    if (isConnectionLoss(err)) {
      log.error({ err: (err as Error)?.message }, 'a database connection was lost under a background operation; continuing');
      return;
    }
    log.fatal({ err: err instanceof Error ? { message: err.message, stack: err.stack } : err }, 'unhandled rejection; exiting');
    process.exit(1);
  });
  const db = await opening;
  // one Redis connection for the caches and rate limits; the process serves without it while it is away
  const redis = config.redisUrl ? connectRedis(config.redisUrl, log) : undefined;
  try {
    await migrate(db.pool);
    const demo = opts.demo ? readSeedFile(DEMO_FILE) : undefined;
    if (demo && (await isEmpty(db.pool))) {
      await loadSeed(db.pool, demo);
      log.info({ file: DEMO_FILE }, 'loaded demo data into the empty database');
    }
    const freebusyCache = createFreeBusyCache(redis, config.freebusyCache);
    const now = () => new Date();
    const runner = await startWorker({ db: db.pool, config, now, log, freebusyCache });
    parts.push({ close: () => runner.stop() });
    // The worker replaces a pool that gives up (src/jobs/worker.ts); should it ever stop by itself,
    // this process would serve without one: exit, so that whatever supervises it starts it again.
    const workerStopped = (err?: unknown) => {
      if (shuttingDown) return;
      log.fatal({ err: err instanceof Error ? err.message : err }, 'the job worker stopped; exiting');
      process.exit(1);
    };
    runner.promise.then(() => workerStopped(), workerStopped);
    if (opts.api) {
      const rateLimitStore = createRateLimitStore(redis);
      // the API's own pool, apart from the worker's, so a job backlog never queues requests
      const kept = Math.min(KEPT_CONNECTIONS, config.apiPoolSize);
      const apiPool = createPool(db.url, config.apiPoolSize, kept);
      parts.push({ close: () => apiPool.end() });
      await openConnections(apiPool, kept);
      observePool('api', apiPool);
      // seed and keys create announce their changes: cached keys are dropped at once
      const configChanges = listenForConfigChanges(db.url, clearKeyCache, log);
      parts.push({ close: () => configChanges.close() });
      // a calendar sync in any process (another worker, the CLI) drops this process's cached
      // answers and calendar blocks for the member, and a booking change in another API process
      // the answers it keeps in memory; a (re)connected listener may have missed some
      const calendarBusy = new CalendarBusyCache();
      const busyCaches = { calendarBusy, freebusyCache };
      const busyChanges = listenForBusyChanges(
        db.url,
        (change) => applyBusyChange(busyCaches, change),
        log,
        () => forgetUnheardChanges(busyCaches),
      );
      parts.push({ close: () => busyChanges.close() });
      const app = await buildServer({
        deps: { db: apiPool, config, now, freebusyCache, calendarBusy, ...(redis ? { redisState: redis.state } : {}) },
        rateLimitStore,
        logger: undefined,
        loggerInstance: log,
      });
      parts.unshift({ close: () => app.close() });
      parts.push({ close: () => rateLimitStore.close() });
      const address = await app.listen({ port: config.port, host: config.host }).catch((err: unknown) => {
        throw cannotListen('HOST and PORT', config.host, config.port, err);
      });
      const base = config.publicUrl ?? address;
      if (demo)
        printDemo(
          base,
          demo,
          await organizationsPresent(
            db.pool,
            demo.organizations.map((o) => o.id),
          ),
        );
      log.info({ url: base, docs: `${base}/docs`, startup_ms: Date.now() - startedAt, embedded: db.embedded }, 'booking service ready');
    } else {
      const metrics =
        config.metricsPort === undefined
          ? undefined
          : await serveMetrics(config.host, config.metricsPort, config.metricsToken).catch((err: unknown) => {
              throw cannotListen('HOST and METRICS_PORT', config.host, config.metricsPort!, err);
            });
      if (metrics) parts.unshift({ close: () => metrics.close() });
      log.info({ startup_ms: Date.now() - startedAt, embedded: db.embedded, ...(metrics && { metrics: metrics.url }) }, 'worker ready');
    }
    parts.push({ close: () => freebusyCache.close() });
    if (redis) parts.push({ close: () => redis.close() });
  } catch (err) {
    // stopping what has started: the worker's end is expected now, not a reason to exit before
    // the error that stopped the start is reported
    shuttingDown = true;
    for (const part of parts) await part.close().catch(() => {});
    redis?.close().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
}

/** A listening socket that could not be opened, named by the variables that chose it (an exit 1, not a bad value's 78). */
function cannotListen(variables: string, host: string, port: number, err: unknown): Error {
  const e = err as { code?: string; message?: string };
  return new Error(`${variables}: cannot listen on ${host}:${port} (${e.code ?? e.message ?? String(err)})`);
}

/** The demo's keys, only those whose organization this database holds (it may hold other data instead). */
function printDemo(base: string, demo: SeedFile, present: ReadonlySet<string>): void {
  const orgs = demo.organizations.filter((o) => present.has(o.id));
  const keys = orgs.flatMap((org) => org.api_keys.map((k) => `  ${k.key}   ${k.name} (${org.name})`));
  const lines =
    keys.length > 0
      ? ['', 'Demo data is loaded. API keys (from fixtures/demo.json):', ...keys]
      : [
          '',
          'The database already holds other data, so the demo was not loaded. Create a key with: booking-service keys create --org <id>',
        ];
  const tryKey = orgs[0]?.api_keys[0]?.key ?? 'KEY';
  lines.push(
    '',
    `API:        ${base}/v1`,
    `Reference:  ${base}/docs`,
    `Try:        curl -H "Authorization: Bearer ${tryKey}" ${base}/v1/event-types`,
  );
  // the booking page needs a publishable key that may book from this origin
  const page = orgs.flatMap((o) =>
    o.api_keys
      .filter(
        (k) => k.key.startsWith('pk_') && k.scopes.includes('bookings:create') && (!k.allowed_origins || k.allowed_origins.includes(base)),
      )
      .map((k) => ({ key: k.key, eventType: o.event_types[0] })),
  )[0];
  if (page?.eventType) lines.push(`Book:       ${base}/book/${page.eventType.id}?key=${page.key}`);
  console.log([...lines, ''].join('\n'));
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') usage('main');
  if (rest.includes('--help') || rest.includes('-h')) usage(command);
  // `seed` takes one FILE, `keys` and `calendars` their own options; the others take no argument
  const extra = command === 'keys' || command === 'calendars' ? [] : rest.slice(command === 'seed' ? 1 : 0);
  if (extra.length > 0 && Object.hasOwn(HELP, command)) {
    console.error(`${command}: unexpected argument "${extra[0]}"\n`);
    usage(command, 2);
  }
  const config = loadConfig();

  switch (command) {
    case 'start':
      return runServe(config, { api: true, demo: true });
    case 'serve':
      return runServe(config, { api: true, demo: false });
    case 'worker':
      return runServe(config, { api: false, demo: false });
    case 'migrate': {
      const result = await withDatabase(config, (db) => migrate(db.pool));
      console.log(result.applied.length ? `applied ${result.applied.join(', ')}` : 'database is up to date');
      return;
    }
    case 'seed': {
      const file = rest[0];
      if (!file) usage('seed', 2);
      const seed = readSeedFile(file);
      const result = await withDatabase(config, async (db) => {
        await migrate(db.pool);
        return loadSeed(db.pool, seed, { secretKey: config.webhookSecretKey });
      });
      const orgs = seed.organizations.length;
      console.log(
        `seeded ${orgs} organization${orgs === 1 ? '' : 's'} from ${file}: ${result.changes} row${result.changes === 1 ? '' : 's'} changed`,
      );
      return;
    }
    case 'keys': {
      if (rest[0] !== 'create') usage('keys', 2);
      const { values } = parseArgs({
        args: rest.slice(1),
        options: {
          org: { type: 'string' },
          organization: { type: 'string' },
          'organization-id': { type: 'string' },
          name: { type: 'string' },
          scopes: { type: 'string', multiple: true },
          scope: { type: 'string', multiple: true },
          mode: { type: 'string' },
          live: { type: 'boolean' },
          test: { type: 'boolean' },
          type: { type: 'string' },
          kind: { type: 'string' },
          secret: { type: 'boolean' },
          publishable: { type: 'boolean' },
          'allowed-origins': { type: 'string', multiple: true },
          'allowed-origin': { type: 'string', multiple: true },
        },
      });
      // Lists may be given as "a,b", "a b" or by repeating the option.
      const list = (...given: (string[] | undefined)[]) => {
        const items = given
          .flatMap((g) => g ?? [])
          .flatMap((v) => v.split(/[\s,]+/))
          .filter(Boolean);
        return items.length ? items : undefined;
      };
      const created = await withDatabase(config, async (db) => {
        await migrate(db.pool);
        return createKey(db.pool, {
          organizationId: values.org ?? values.organization ?? values['organization-id'],
          name: values.name,
          scopes: list(values.scopes, values.scope),
          mode: values.mode ?? (values.live ? 'live' : 'test'),
          type: values.type ?? values.kind ?? (values.publishable ? 'publishable' : 'secret'),
          allowedOrigins: list(values['allowed-origins'], values['allowed-origin']),
        });
      });
      console.log(created.key);
      console.error(`created ${created.kind} ${created.mode} key ${created.id} for ${created.organizationId}; it is shown only this once`);
      return;
    }
    case 'calendars':
      return runCalendars(config, rest);
    default:
      console.error(`unknown command "${command}"\n`);
      usage('main', 2);
  }
}

async function runCalendars(config: Config, rest: string[]): Promise<void> {
  const sub = rest[0];
  if (sub === 'connect') {
    const { values } = parseArgs({
      args: rest.slice(1),
      options: {
        org: { type: 'string' },
        member: { type: 'string' },
        url: { type: 'string' },
        username: { type: 'string' },
        'password-env': { type: 'string' },
        primary: { type: 'string' },
      },
    });
    for (const name of ['org', 'member', 'url', 'username', 'password-env'] as const) {
      if (!values[name]) {
        console.error(`calendars connect: --${name} is required\n`);
        usage('calendars', 2);
      }
    }
    const password = process.env[values['password-env']!];
    if (!password) {
      console.error(`calendars connect: the environment variable ${values['password-env']} (--password-env) is not set or empty`);
      process.exit(2);
    }
    const result = await withDatabase(config, async (db) => {
      await migrate(db.pool);
      return connectCalendars(
        { db: db.pool, secretKey: config.webhookSecretKey, timeoutMs: config.calendarRequestTimeoutMs },
        {
          organizationId: values.org!,
          memberId: values.member!,
          url: values.url!,
          username: values.username!,
          password,
          primary: values.primary,
        },
      );
    });
    for (const c of result.calendars) {
      console.log(`${c.id}  ${c.provider}  ${c.isPrimary ? 'primary' : '       '}  ${c.name}  ${c.url}`);
    }
    console.error(
      `connected ${result.calendars.length} calendar${result.calendars.length === 1 ? '' : 's'}; each syncs when a worker runs`,
    );
    return;
  }
  if (sub === 'sync') {
    const { values } = parseArgs({ args: rest.slice(1), options: { calendar: { type: 'string' } } });
    const log = createLogger(config);
    let failed = false;
    await withDatabase(config, async (db) => {
      await migrate(db.pool);
      // with REDIS_URL the worker processes' shared cache is told directly; every API process also hears the NOTIFY
      const redis = config.redisUrl ? connectRedis(config.redisUrl, log) : undefined;
      const cache = createFreeBusyCache(redis);
      try {
        const list = await connectedCalendars(db.pool, values.calendar);
        if (values.calendar !== undefined && list.length === 0) {
          console.error(`calendars sync: no connected calendar "${values.calendar}"`);
          failed = true;
        }
        for (const c of list) {
          const r = await syncCalendar({ db: db.pool, config, now: () => new Date(), log, freebusyCache: cache }, c.id);
          if (r.status !== 'SUCCESS') failed = true;
          const note = r.error ? `  ${r.error}` : '';
          console.log(
            `${c.id}  ${r.status}  events=${r.events} skipped=${r.skipped} busy_blocks=${r.busyBlocks} requests=${r.requests} ` +
              `duration_ms=${r.durationMs}${note}`,
          );
        }
      } finally {
        await cache.close();
        await redis?.close();
      }
    });
    if (failed) process.exit(1);
    return;
  }
  usage('calendars', 2);
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof ConfigError || err instanceof SeedError || err instanceof KeyCreateError) {
    console.error(err.message);
    process.exit(err instanceof ConfigError ? 78 : 1);
  }
  if (
    (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
    (err as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
  ) {
    console.error((err as Error).message);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
