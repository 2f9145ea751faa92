import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { runCli, startCli } from '../helpers/cli.ts';
import { demoSeed, testSeed } from '../helpers/fixtures.ts';
import { freePort } from '../helpers/ports.ts';

let db: TestDatabase;
let dir: string;
before(async () => {
  db = await createTestDatabase({ migrate: false });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bs-cli-'));
});
after(async () => {
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeSeed(name: string, seed: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(seed, null, 2));
  return file;
}

async function count(table: string): Promise<number> {
  const r = await db.pool.query(`select count(*)::int n from ${table}`);
  return r.rows[0].n;
}

describe('booking-service CLI', () => {
  it('--help lists the commands and each command has its own help', async () => {
    const main = await runCli(['--help'], {});
    assert.equal(main.code, 0);
    for (const cmd of ['serve', 'worker', 'migrate', 'seed FILE', 'keys create']) assert.match(main.stdout, new RegExp(cmd));
    const keys = await runCli(['keys', 'create', '--help'], {});
    assert.equal(keys.code, 0);
    assert.match(keys.stdout, /--org/);
  });

  it('migrate applies every migration once; a second run is a no-op', async () => {
    const first = await runCli(['migrate'], { DATABASE_URL: db.url });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /applied baseline/);
    const second = await runCli(['migrate'], { DATABASE_URL: db.url });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /up to date/);
  });

  it('two migrate processes started together apply each migration once', async () => {
    const other = await createTestDatabase({ migrate: false });
    try {
      const [a, b] = await Promise.all([
        runCli(['migrate'], { DATABASE_URL: other.url }),
        runCli(['migrate'], { DATABASE_URL: other.url }),
      ]);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(b.code, 0, b.stderr);
      const r = await other.pool.query('select version, count(*)::int n from schema_migrations group by version');
      assert.ok(r.rows.some((row) => row.version === 'baseline'));
      assert.ok(r.rows.every((row) => row.n === 1));
    } finally {
      await other.drop();
    }
  });

  it('refuses a bad seed file whole, naming the path, and writes nothing', async () => {
    const cases: [string, (s: ReturnType<typeof demoSeed>) => void, RegExp][] = [
      [
        'timezone',
        (s) => (s.organizations[0].members[2].timezone = 'Mars/Base'),
        /organizations\[0\]\.members\[2\]\.timezone: unknown time zone "Mars\/Base"/,
      ],
      [
        'HH:MM',
        (s) => (s.organizations[0].members[0].working_hours[0].start = '9am'),
        /members\[0\]\.working_hours\[0\]\.start: expected HH:MM/,
      ],
      [
        'end before start',
        (s) => (s.organizations[0].members[0].working_hours[0].end = '08:00'),
        /members\[0\]\.working_hours\[0\]\.end: end 08:00 is not after start 09:00/,
      ],
      ['unknown team', (s) => (s.organizations[0].members[1].team_id = 'team_nope'), /members\[1\]\.team_id: unknown team "team_nope"/],
      [
        'unknown host',
        (s) => (s.organizations[0].event_types[0].host_ids = ['00000000-0000-4000-8000-000000000000']),
        /event_types\[0\]\.host_ids\[0\]: unknown member/,
      ],
      [
        'duplicate id',
        (s) => (s.organizations[0].members[1].id = s.organizations[0].members[0].id),
        /members\[1\]\.id: duplicate member id/,
      ],
      [
        'unknown scope',
        (s) => s.organizations[0].api_keys[0].scopes.push('bookings:destroy'),
        /api_keys\[0\]\.scopes\[10\]: unknown scope "bookings:destroy"/,
      ],
      [
        'bad prefix',
        (s) => (s.organizations[0].api_keys[0].key = 'xk_test_northwind_demo_0001'),
        /api_keys\[0\]\.key: must start with pk_live_, pk_test_, sk_live_ or sk_test_/,
      ],
      [
        'secret scope on pk',
        (s) => s.organizations[0].api_keys[1].scopes.push('calendars:read'),
        /api_keys\[1\]\.scopes\[3\]: scope "calendars:read" is for secret keys only/,
      ],
      // the last organization is valid up to its last key: nothing of the first may be written
      [
        'late error',
        (s) =>
          s.organizations.push({
            ...s.organizations[0],
            id: 'org_2',
            teams: [{ id: 'team_x', name: 'X' }],
            members: [],
            event_types: [],
            calendars: [],
            api_keys: [{ key: 'sk_test_bad', name: 'k', scopes: [] }],
          }),
        /organizations\[1\]\.api_keys\[0\]\.key/,
      ],
    ];
    for (const [name, mutate, message] of cases) {
      const seed = demoSeed();
      mutate(seed);
      const result = await runCli(['seed', writeSeed(`bad-${name.replace(/\W/g, '-')}.json`, seed)], { DATABASE_URL: db.url });
      assert.notEqual(result.code, 0, name);
      assert.match(result.stderr, message, name);
      assert.equal(result.stderr.trim().split('\n').length, 1, `${name}: one line`);
      assert.equal(await count('organizations'), 0, `${name}: nothing written`);
    }
    const notJson = await runCli(['seed', writeSeed('not-json.json', 'x').replace('.json', '.json')], { DATABASE_URL: db.url });
    assert.notEqual(notJson.code, 0);
  });

  it('seed loads a file, a second run changes nothing, a changed file updates by id', async () => {
    const file = writeSeed('demo.json', demoSeed());
    const first = await runCli(['seed', file], { DATABASE_URL: db.url });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /seeded 1 organization/);
    assert.equal(await count('members'), 3);
    assert.equal(await count('api_keys'), 2);
    const keys = await db.pool.query('select key_hash from api_keys');
    assert.ok(
      keys.rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_hash)),
      'only hashes are stored',
    );
    const raw = await db.pool.query(
      "select count(*)::int n from api_keys where key_hash like '%northwind%' or key_prefix = 'sk_test_northwind_demo_server_key_0001'",
    );
    assert.equal(raw.rows[0].n, 0);

    const before = await db.pool.query('select id, updated_at from members order by id');
    const again = await runCli(['seed', file], { DATABASE_URL: db.url });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /: 0 rows changed/);
    const after = await db.pool.query('select id, updated_at from members order by id');
    assert.deepEqual(after.rows, before.rows);

    const changed = demoSeed();
    changed.organizations[0].members[0].name = 'Amara O.';
    const third = await runCli(['seed', writeSeed('changed.json', changed)], { DATABASE_URL: db.url });
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stdout, /: 1 row changed/);
    const name = await db.pool.query("select name from members where id = '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b01'");
    assert.equal(name.rows[0].name, 'Amara O.');
    assert.equal(await count('members'), 3);
  });

  it('keys create prints a key once that then works against serve', async () => {
    const created = await runCli(
      ['keys', 'create', '--org', 'org_northwind', '--name', 'CI key', '--scopes', 'event-types:read,team:read', '--mode', 'live'],
      { DATABASE_URL: db.url },
    );
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim();
    assert.match(key, /^sk_live_[A-Za-z0-9]{20,}$/);
    const stored = await db.pool.query('select kind, mode, scopes from api_keys where name = $1', ['CI key']);
    assert.deepEqual(stored.rows[0], { kind: 'secret', mode: 'live', scopes: ['event-types:read', 'team:read'] });

    const bad = await runCli(
      ['keys', 'create', '--org', 'org_northwind', '--name', 'x', '--scopes', 'calendars:read', '--type', 'publishable'],
      { DATABASE_URL: db.url },
    );
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--scopes: scope "calendars:read" is for secret keys only/);
    const noOrg = await runCli(['keys', 'create', '--org', 'org_nope', '--name', 'x', '--scopes', 'team:read'], { DATABASE_URL: db.url });
    assert.match(noOrg.stderr, /--org: unknown organization "org_nope"/);

    const port = await freePort();
    const server = startCli(['serve'], { DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'info' }, /booking service ready/);
    try {
      await server.started;
      // serve replaced itself (same pid) with the heap flags and two malloc arenas (docs/memory.md)
      const proc = (f: string) => fs.readFileSync(`/proc/${server.child.pid}/${f}`, 'utf8').split('\0');
      assert.ok(proc('environ').includes('MALLOC_ARENA_MAX=2'));
      for (const flag of ['--max-semi-space-size=16', '--heap-growing-percent=50']) assert.ok(proc('cmdline').includes(flag), flag);
      // the API's and the worker's pools each opened the connections they keep (src/cli.ts)
      const open = await db.pool.query(
        `select count(*)::int n from pg_stat_activity where datname = current_database() and application_name = 'booking-service' and pid <> pg_backend_pid()`,
      );
      assert.ok(open.rows[0].n >= 8, `${open.rows[0].n} connections open at start`);
      const res = await fetch(`http://127.0.0.1:${port}/v1/event-types`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), '1000', 'live keys get 1000 requests per minute');
      const body = (await res.json()) as { event_types: unknown[] };
      assert.equal(body.event_types.length, 3);
      assert.doesNotMatch(server.output(), new RegExp(key), 'logs never contain a key');

      // seed takes a scope away from a key the server has just cached: it is refused at once,
      // not when the 10 s cache expires
      const demoKey = 'sk_test_northwind_demo_server_key_0001';
      const asDemo = () => fetch(`http://127.0.0.1:${port}/v1/event-types`, { headers: { authorization: `Bearer ${demoKey}` } });
      assert.equal((await asDemo()).status, 200);
      const narrowed = demoSeed();
      const demo = narrowed.organizations[0].api_keys.find((k: { key: string }) => k.key === demoKey);
      demo.scopes = demo.scopes.filter((s: string) => s !== 'event-types:read');
      assert.equal((await runCli(['seed', writeSeed('narrowed.json', narrowed)], { DATABASE_URL: db.url })).code, 0);
      let status = 0;
      for (let i = 0; i < 30 && status !== 403; i++) {
        status = (await asDemo()).status;
        if (status !== 403) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 403, 'refused within 3 s of the seed');
      assert.equal((await runCli(['seed', writeSeed('restored.json', demoSeed())], { DATABASE_URL: db.url })).code, 0);

      // keys create announces too: an origin the server has just refused (and cached) is
      // allowed once a publishable key lists it, not when the 10 s cache expires
      const origin = 'https://shop.cli-test.example';
      const preflight = () =>
        fetch(`http://127.0.0.1:${port}/v1/event-types`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'GET' },
        });
      assert.equal((await preflight()).status, 403);
      const widget = await runCli(
        [
          'keys',
          'create',
          '--org',
          'org_northwind',
          '--name',
          'Shop widget',
          '--scopes',
          'event-types:read',
          '--type',
          'publishable',
          '--allowed-origins',
          origin,
        ],
        { DATABASE_URL: db.url },
      );
      assert.equal(widget.code, 0, widget.stderr);
      let allowed = 0;
      for (let i = 0; i < 30 && allowed !== 204; i++) {
        allowed = (await preflight()).status;
        if (allowed !== 204) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(allowed, 204, 'allowed within 3 s of keys create');
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0, 'SIGTERM stops serve cleanly');
    }
  });

  it('keys create also takes the other usual spellings of its options', async () => {
    const created = await runCli(
      [
        'keys',
        'create',
        '--organization',
        'org_northwind',
        '--name',
        'Widget',
        '--scope',
        'bookings:create',
        '--scope',
        'event-types:read',
        '--publishable',
        '--live',
        '--allowed-origin',
        'https://a.example',
        '--allowed-origin',
        'https://b.example',
      ],
      { DATABASE_URL: db.url },
    );
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout.trim(), /^pk_live_/);
    const stored = await db.pool.query('select kind, mode, scopes, allowed_origins from api_keys where name = $1', ['Widget']);
    assert.deepEqual(stored.rows[0], {
      kind: 'publishable',
      mode: 'live',
      scopes: ['bookings:create', 'event-types:read'],
      allowed_origins: ['https://a.example', 'https://b.example'],
    });
  });

  it('a bad environment variable exits non-zero with one line naming it', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: 'abc' }, /^PORT: expected a whole number, got "abc"$/],
      [{ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nope' }, /^DATABASE_URL: cannot connect to the database/],
      [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL: protocol must be one of/],
      [{ WEBHOOK_RETRY_SCHEDULE: 'x', DATABASE_URL: db.url }, /^WEBHOOK_RETRY_SCHEDULE: expected comma-separated seconds/],
      [
        { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', NODE_ENV: 'production', DATABASE_URL: db.url },
        /^WEBHOOK_ALLOW_PRIVATE_TARGETS: must not be true when NODE_ENV=production$/,
      ],
      [{ SMTP_URL: 'not a url', DATABASE_URL: db.url }, /^SMTP_URL: not a valid URL$/],
      [{ HOST: 'not a host', DATABASE_URL: db.url }, /^HOST: must be an IP address or a host name, got "not a host"$/],
      [{ MAIL_FROM: 'not an address <‹', DATABASE_URL: db.url }, /^MAIL_FROM: expected an address or "Name <address>"/],
      [
        { WEBHOOK_CA_FILE: '/nonexistent/ca.pem', DATABASE_URL: db.url },
        /^WEBHOOK_CA_FILE: cannot read "\/nonexistent\/ca.pem" \(ENOENT\)$/,
      ],
      [{ WEBHOOK_CA_FILE: 'package.json', DATABASE_URL: db.url }, /^WEBHOOK_CA_FILE: "package.json" holds no PEM certificate$/],
    ];
    for (const [env, message] of cases) {
      const result = await runCli(['serve'], env);
      assert.notEqual(result.code, 0, JSON.stringify(env));
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `${JSON.stringify(env)}: ${result.stderr}`);
      assert.match(lines[0], message);
    }
  });

  it('a database that is down exits 1 (a supervisor restarts it); one that does not exist exits 78', async () => {
    const down = await runCli(['serve'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nope' });
    assert.equal(down.code, 1, down.stderr);
    assert.match(down.stderr.trim(), /^DATABASE_URL: cannot connect to the database \(.*ECONNREFUSED/);
    const missing = await runCli(['serve'], { DATABASE_URL: db.url.replace(/\/[^/]*$/, '/no_such_database_here') });
    assert.equal(missing.code, 78, missing.stderr);
    assert.match(
      missing.stderr.trim(),
      /^DATABASE_URL: cannot connect to the database \(database "no_such_database_here" does not exist\)$/,
    );
  });

  it('reports every bad environment variable at once, one line each', async () => {
    const result = await runCli(['serve'], { PORT: '70000', LOG_LEVEL: 'loud', RATE_LIMIT_TEST_PER_MINUTE: 'x' });
    assert.notEqual(result.code, 0);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 3, result.stderr);
    assert.match(result.stderr, /^PORT: must be between 0 and 65535, got 70000$/m);
    assert.match(result.stderr, /^LOG_LEVEL: must be one of .*, got "loud"$/m);
    assert.match(result.stderr, /^RATE_LIMIT_TEST_PER_MINUTE: expected a whole number/m);
  });

  it('worker runs queued jobs without an API, serves its metrics on METRICS_PORT, and warns when private webhook targets are allowed', async () => {
    // a DRAFT booking holding Amara, and its routing job, as POST /bookings leaves them
    const id = 'bkg_cli_worker_0000000001';
    await db.pool.query(
      `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee)
       values ($1, 'org_northwind', 'test', 'et_intro_call', 'DRAFT', '2027-06-07T10:00:00Z', '2027-06-07T10:30:00Z', '{"name":"W","email":"w@example.com"}')`,
      [id],
    );
    await db.pool.query(
      `insert into booking_members (booking_id, member_id, mode, start_time, during)
       values ($1, '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b01', 'test', '2027-06-07T10:00:00Z', tstzrange('2027-06-07T10:00:00Z', '2027-06-07T10:40:00Z'))`,
      [id],
    );
    await db.pool.query(`select graphile_worker.add_job('route-booking', json_build_object('bookingId', $1::text))`, [id]);
    const metricsPort = await freePort();
    const worker = startCli(
      ['worker'],
      {
        DATABASE_URL: db.url,
        LOG_LEVEL: 'info',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        METRICS_PORT: String(metricsPort),
        METRICS_TOKEN: 'tok',
      },
      /worker ready/,
    );
    try {
      await worker.started;
      assert.match(worker.output(), /WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may target private and loopback addresses/);
      const deadline = Date.now() + 15_000;
      let status = 'DRAFT';
      while (status === 'DRAFT' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await db.pool.query('select status from bookings where id = $1', [id])).rows[0].status;
      }
      assert.equal(status, 'SCHEDULED', 'the worker routed the booking');
      const url = `http://127.0.0.1:${metricsPort}/metrics`;
      assert.equal((await fetch(url)).status, 401, 'METRICS_TOKEN guards it');
      const metrics = await (await fetch(url, { headers: { authorization: 'Bearer tok' } })).text();
      assert.match(metrics, /^booking_transitions_total\{to="SCHEDULED"\} 1$/m);
      assert.match(metrics, /^booking_routing_seconds_count 1$/m);
    } finally {
      worker.child.kill('SIGTERM');
      assert.equal(await worker.exited, 0, 'SIGTERM stops the worker cleanly');
    }
  });

  it("API_POOL_SIZE caps the connections serve's API holds, however many requests come at once", async () => {
    const own = await createTestDatabase();
    const port = await freePort();
    const env = {
      DATABASE_URL: own.url,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      WORKER_CONCURRENCY: '2',
      RATE_LIMIT_TEST_PER_MINUTE: '1000000',
    };
    assert.equal((await runCli(['seed', writeSeed('pool.json', demoSeed())], env)).code, 0);
    const serve = startCli(['serve'], { ...env, API_POOL_SIZE: '2', LOG_LEVEL: 'info' }, /booking service ready/);
    try {
      await serve.started;
      const list = () =>
        fetch(`http://127.0.0.1:${port}/v1/event-types`, { headers: { authorization: 'Bearer sk_test_northwind_demo_server_key_0001' } });
      for (let round = 0; round < 5; round++) {
        const statuses = await Promise.all(Array.from({ length: 50 }, async () => (await list()).status));
        assert.deepEqual(new Set(statuses), new Set([200]), 'every request answered: they wait for a connection');
      }
      // each connection's last statement: the API's ran the list, the worker's graphile-worker's own
      const api = await own.pool.query(
        `select count(*)::int n from pg_stat_activity
          where datname = current_database() and application_name = 'booking-service' and pid <> pg_backend_pid()
            and query ilike '%from event_types%'`,
      );
      assert.ok(api.rows[0].n >= 1 && api.rows[0].n <= 2, `${api.rows[0].n} connections ran the API's list`);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      await own.drop();
    }
  });

  it('a port it cannot listen on exits 1 with one line naming the address and the variables', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const serve = await runCli(['serve'], { DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'warn' });
      assert.equal(serve.code, 1, serve.stderr);
      assert.match(serve.stderr, new RegExp(`^HOST and PORT: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)$`, 'm'));
      assert.doesNotMatch(serve.stdout + serve.stderr, /the job worker stopped/);
      const worker = await runCli(['worker'], { DATABASE_URL: db.url, METRICS_PORT: String(port), LOG_LEVEL: 'warn' });
      assert.equal(worker.code, 1, worker.stderr);
      assert.match(worker.stderr, new RegExp(`^HOST and METRICS_PORT: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)$`, 'm'));
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  // Node 22.12 to 22.17 (decisions.md: 22.12+ supported) strip types only when asked; Node 24
  // without type stripping stands in for them: the binary runs itself again with the flag.
  it('runs on a Node that does not strip types by default: exit codes, and serve stops on SIGTERM', async () => {
    const old = ['--no-experimental-strip-types'];
    assert.equal((await runCli(['--help'], {}, 60_000, old)).code, 0);
    const unknown = await runCli(['frobnicate'], {}, 60_000, old);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
    const port = await freePort();
    const serve = startCli(
      ['serve'],
      { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      /booking service ready/,
      90_000,
      old,
    );
    await serve.started;
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
  });

  it('an unknown command exits 2 naming it, with the usage on stderr', async () => {
    const result = await runCli(['frobnicate'], {});
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown command "frobnicate"/);
    assert.match(result.stderr, /seed FILE/);
  });

  it('start on a database that holds other data loads no demo and prints no demo key', async () => {
    const other = await createTestDatabase();
    try {
      const seed = testSeed();
      seed.organizations = seed.organizations.filter((o: { id: string }) => o.id === 'org_globex');
      const file = writeSeed('globex-only.json', seed);
      assert.equal((await runCli(['seed', file], { DATABASE_URL: other.url })).code, 0);
      const port = await freePort();
      const proc = startCli(['start'], { DATABASE_URL: other.url, PORT: String(port), LOG_LEVEL: 'info' }, /booking service ready/, 90_000);
      const output = await proc.started;
      proc.child.kill('SIGTERM');
      assert.equal(await proc.exited, 0);
      assert.doesNotMatch(output, /sk_test_northwind|Demo data is loaded/);
      assert.match(output, /already holds other data, so the demo was not loaded/);
    } finally {
      await other.drop();
    }
  });

  it('an unexpected argument exits 2 naming it, before touching the database', async () => {
    for (const [args, name] of [
      [['seed', 'a.json', 'b.json'], 'b.json'],
      [['migrate', 'now'], 'now'],
      [['serve', 'x'], 'x'],
    ] as const) {
      const result = await runCli([...args], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nope' });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^${args[0]}: unexpected argument "${name}"`, 'm'));
    }
  });
});
