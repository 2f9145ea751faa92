/**
 * Soak: `booking-service serve` (API and worker in one process, as shipped) in its own Node
 * process under SOAK_SECONDS (default 600) of mixed traffic at SOAK_RATE requests/s (default
 * 40): creates, availability, free/busy, lists, reads by id, changes (PATCH, cancel,
 * reschedule), and a webhook subscribed to every event delivering to a local HTTPS receiver
 * (1 answer in 50 is a 503, so retries run too). Every minute: requests, their p50/p99, the
 * serve process's RSS (/proc/<pid>/status) and V8 heap (its GET /metrics), webhook deliveries.
 * Verdict: RSS ≤ 250 MB; no growth over the last half (slope of a least-squares line through
 * the RSS samples ≤ 1 MB/min); p50 and p99 flat: those of every request of the last half within
 * ±20 % of those of the first half after the first minute (warm-up). One minute's p99 is its
 * 24th-slowest request, and comparing the last minute's with the second's failed on the
 * machine's drift about as often as it passed, with no trend across the minutes between.
 * `npm run bench -- soak`   (SOAK_SECONDS, SOAK_RATE; SOAK_NODE_ARGS, e.g.
 * "--heapsnapshot-signal=SIGUSR2", is passed to the serve process; BENCH_KEEP_DB=1 keeps the
 * database for a look at its tables afterwards, e.g. their dead row versions)
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { loadSeed } from '../src/domain/seed/load.ts';
import { validateSeed } from '../src/domain/seed/validate.ts';
import { loadHostId, loadOrganization, testSeed } from '../test/helpers/fixtures.ts';
import { cpuMs, percentile, sleep, startServe, stop, benchDatabase } from './support.ts';

const SECONDS = Math.max(60, Number(process.env.SOAK_SECONDS ?? 600));
const RATE = Math.min(500, Math.max(1, Number(process.env.SOAK_RATE ?? 40)));
/** At most this many requests in flight; a request that would need more waits its turn. */
const LANES = 16;
const SAMPLE_MS = 5_000;
const RSS_LIMIT_MB = 250;
const SLOPE_LIMIT_MB_PER_MIN = 1;
const FLAT = 0.2;
const KEY = 'sk_test_bench_soak_key_00000000000001';
const HOSTS = 20;
const MIN = 60_000;

const hostId = (i: number) => loadHostId('c', i);

/** 20 hosts working around the clock, a 15-minute round-robin type; the key holds every scope the traffic needs. */
function soakSeed() {
  const seed = testSeed();
  const scopes = ['bookings:create', 'bookings:read', 'bookings:write', 'event-types:read', 'team:read', 'team:members:read'];
  seed.organizations.push(
    loadOrganization({ name: 'soak', digit: 'c', key: KEY, hosts: HOSTS, scopes: [...scopes, 'webhooks:read', 'webhooks:manage'] }),
  );
  return seed;
}

/** An HTTPS receiver that keeps counts only (memory stays flat however long the soak). */
async function startReceiver() {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-receiver-'));
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, pems.cert);
  const counts = { ok: 0, refused: 0 };
  const server = https.createServer({ key: pems.private, cert: pems.cert, keepAliveTimeout: 30_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const refuse = (counts.ok + counts.refused) % 50 === 49;
      if (refuse) counts.refused++;
      else counts.ok++;
      res.writeHead(refuse ? 503 : 200, { 'content-type': 'text/plain' });
      res.end(refuse ? 'busy' : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    caFile,
    counts,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * VmRSS of a process in MB, and its two parts: anonymous memory (heap, malloc) and pages of mapped
 * files (the node binary's code and its ICU data, shared libraries), from /proc; NaN where /proc
 * is not there.
 */
function rssMb(pid: number | undefined): { rss: number; anon: number; file: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
  } catch {
    return { rss: NaN, anon: NaN, file: NaN };
  }
}

/** Slope of the least-squares line through (x, y) points. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

interface Minute {
  latencies: number[];
  /** Latencies by operation. */
  byOp: Map<string, number[]>;
  clientErrors: number;
  failures: number;
  rss: number[];
  anon: number[];
  file: number[];
  heap: number[];
  /** Buffers and other memory outside the V8 heap (nodejs_external_memory_bytes). */
  external: number[];
  /** The serve process's CPU time at the minute's first sample. */
  cpuAtStart: number;
}
const newMinute = (cpu: number): Minute => ({
  latencies: [],
  byOp: new Map(),
  clientErrors: 0,
  failures: 0,
  rss: [],
  anon: [],
  file: [],
  heap: [],
  external: [],
  cpuAtStart: cpu,
});

const db = await benchDatabase();
await loadSeed(db.pool, validateSeed(soakSeed()));
const rx = await startReceiver();
let service: ChildProcess | undefined;
try {
  // NODE_ENV=test: production refuses WEBHOOK_ALLOW_PRIVATE_TARGETS, and the receiver is on loopback
  const started = await startServe(
    db.url,
    { NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: rx.caFile },
    process.env.SOAK_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
  );
  service = started.service;
  const base = started.base;
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const hook = await call('POST', '/v1/webhooks', {
    url: `${rx.origin}/soak`,
    events: [
      'BOOKING_CREATED',
      'BOOKING_UPDATED',
      'BOOKING_CANCELLED',
      'BOOKING_RESCHEDULED',
      'BOOKING_COMPLETED',
      'BOOKING_NO_SHOW',
      'ASSIGNMENT_CHANGED',
    ],
  });
  if (hook.status !== 201) throw new Error(`webhook not created: ${hook.status} ${JSON.stringify(hook.body)}`);

  // Slots: 10 bookings per 15-minute slot (of 20 hosts) from tomorrow 00:00 UTC; reschedules
  // move to their own grid 120 days later, so they do not compete with the creates.
  const day0 = new Date();
  day0.setUTCHours(24, 0, 0, 0);
  const slotAt = (n: number, offsetDays: number) =>
    new Date(day0.getTime() + offsetDays * 1440 * MIN + Math.floor(n / 10) * 15 * MIN).toISOString();
  let creates = 0;
  let reschedules = 0;
  // live bookings to read and change: a ring of the newest (bounded)
  const live: string[] = [];
  const remember = (id: string) => {
    live.push(id);
    if (live.length > 2000) live.shift();
  };
  const pick = () => (live.length ? live[Math.floor(Math.random() * live.length)] : undefined);
  const take = () => (live.length ? live.splice(Math.floor(Math.random() * live.length), 1)[0] : undefined);
  const dateOf = (daysAhead: number) => new Date(day0.getTime() + daysAhead * 1440 * MIN).toISOString().slice(0, 10);
  let listCursor: string | undefined;

  /** One request of the mix; returns its name and status (0: none made). */
  const ops: [number, string, () => Promise<number>][] = [
    [
      20,
      'create',
      async () => {
        const n = creates++;
        const r = await call('POST', '/v1/bookings', {
          event_type_id: 'et_soak',
          requested_time: slotAt(n, 0),
          attendee: { name: `Soak ${n}`, email: `soak${n}@soak.example` },
        });
        if (r.status === 201) remember(r.body.booking.id);
        return r.status;
      },
    ],
    [
      22,
      'availability',
      async () => {
        const from = Math.floor(Math.random() * 20);
        return (await call('GET', `/v1/availability?event_type_id=et_soak&start_date=${dateOf(from)}&end_date=${dateOf(from + 13)}`))
          .status;
      },
    ],
    [
      5,
      'freebusy',
      async () => {
        const from = Math.floor(Math.random() * 10);
        const start = new Date(day0.getTime() + from * 1440 * MIN).toISOString();
        const end = new Date(day0.getTime() + (from + 7) * 1440 * MIN).toISOString();
        return (await call('GET', `/v1/freebusy/${hostId(1 + Math.floor(Math.random() * HOSTS))}?start=${start}&end=${end}`)).status;
      },
    ],
    [
      15,
      'list',
      async () => {
        const r = await call(
          'GET',
          `/v1/bookings?limit=50${listCursor && Math.random() < 0.5 ? `&cursor=${encodeURIComponent(listCursor)}` : ''}`,
        );
        listCursor = r.body?.pagination?.next_cursor ?? undefined;
        return r.status;
      },
    ],
    [
      10,
      'get',
      async () => {
        const id = pick();
        return id ? (await call('GET', `/v1/bookings/${id}`)).status : 0;
      },
    ],
    [
      12,
      'patch',
      async () => {
        const id = pick();
        return id
          ? (await call('PATCH', `/v1/bookings/${id}`, { attendee: { name: `Renamed ${Math.random().toString(36).slice(2, 8)}` } })).status
          : 0;
      },
    ],
    [
      8,
      'cancel',
      async () => {
        const id = take();
        return id ? (await call('DELETE', `/v1/bookings/${id}`, { reason: 'soak' })).status : 0;
      },
    ],
    [
      8,
      'reschedule',
      async () => {
        const id = take();
        if (!id) return 0;
        const r = await call('POST', `/v1/bookings/${id}/reschedule`, { start_time: slotAt(reschedules++, 120), reason: 'soak' });
        if (r.status === 200) remember(r.body.booking.id);
        else remember(id);
        return r.status;
      },
    ],
  ];
  const totalWeight = ops.reduce((s, o) => s + o[0], 0);
  const chooseOp = () => {
    let r = Math.random() * totalWeight;
    for (const op of ops) if ((r -= op[0]) < 0) return op;
    return ops[0]!;
  };

  // ---------- the run ----------
  const minutes: Minute[] = [];
  const rssPoints: { x: number; y: number }[] = [];
  const statusCounts = new Map<string, number>();
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  const maxRequests = Math.ceil(RATE * SECONDS * 1.1);
  let issued = 0;
  const minuteOf = (t: number) => Math.min(Math.floor((t - t0) / MIN), Math.ceil(SECONDS / 60) - 1);
  const current = (t: number) => (minutes[minuteOf(t)] ??= newMinute(cpuMs(service?.pid)));

  const sampler = setInterval(() => {
    void (async () => {
      const now = performance.now();
      const { rss, anon, file } = rssMb(service?.pid);
      const m = current(now);
      m.rss.push(rss);
      m.anon.push(anon);
      m.file.push(file);
      rssPoints.push({ x: (now - t0) / MIN, y: rss });
      try {
        const text = await (await fetch(`${base}/metrics`)).text();
        const heap = /^nodejs_heap_size_used_bytes (\S+)/m.exec(text);
        if (heap) m.heap.push(Number(heap[1]) / 2 ** 20);
        const external = /^nodejs_external_memory_bytes (\S+)/m.exec(text);
        if (external) m.external.push(Number(external[1]) / 2 ** 20);
      } catch {
        // a missed sample
      }
    })();
  }, SAMPLE_MS);

  // LANES workers take request slots paced at RATE/s; a lane more than a second behind skips
  // ahead rather than bursting. Bounded by the end time and by maxRequests.
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (issued < maxRequests) {
        const slot = issued++;
        let due = t0 + (slot * 1000) / RATE;
        const now = performance.now();
        if (now - due > 1000) due = now;
        if (due >= end) break;
        if (due > now) await sleep(due - now);
        const [, name, op] = chooseOp();
        const started = performance.now();
        let status: number;
        try {
          status = await op();
        } catch {
          status = -1;
        }
        if (status === 0) continue;
        const m = current(started);
        m.latencies.push(performance.now() - started);
        const ofOp = m.byOp.get(name) ?? [];
        ofOp.push(performance.now() - started);
        m.byOp.set(name, ofOp);
        if (status < 0 || status >= 500) m.failures++;
        else if (status >= 400) m.clientErrors++;
        const key = `${name} ${status}`;
        statusCounts.set(key, (statusCounts.get(key) ?? 0) + 1);
      }
    }),
  );
  clearInterval(sampler);
  const cpuAtEnd = cpuMs(service.pid);

  // ---------- report ----------
  const rows = minutes.map((m, i) => {
    m.latencies.sort((a, b) => a - b);
    const cpuEnd = minutes[i + 1]?.cpuAtStart ?? cpuAtEnd;
    const max = (xs: number[]) => (xs.length ? Math.max(...xs) : NaN);
    return {
      minute: i + 1,
      requests: m.latencies.length,
      '4xx': m.clientErrors,
      '5xx/err': m.failures,
      'p50 ms': Number(percentile(m.latencies, 50).toFixed(1)),
      'p99 ms': Number(percentile(m.latencies, 99).toFixed(1)),
      // service CPU per request (worker jobs included): unlike latency, it does not move with other load on the machine
      'CPU ms/req': Number(((cpuEnd - m.cpuAtStart) / m.latencies.length).toFixed(2)),
      'RSS MB (max)': Number(max(m.rss).toFixed(1)),
      'anon MB (max)': Number(max(m.anon).toFixed(1)),
      'file MB (max)': Number(max(m.file).toFixed(1)),
      'heap MB (max)': Number(max(m.heap).toFixed(1)),
      // the lowest reading of the minute: close to what survives a collection, so a leak shows here first
      'heap MB (min)': Number((m.heap.length ? Math.min(...m.heap) : NaN).toFixed(1)),
      'external MB (max)': Number(max(m.external).toFixed(1)),
    };
  });
  console.table(rows);
  const opTable = (m: Minute | undefined) =>
    Object.fromEntries(
      [...(m?.byOp ?? [])].map(([op, ls]) => {
        ls.sort((a, b) => a - b);
        return [op, `${ls.length} req, p50 ${percentile(ls, 50).toFixed(1)} ms, p99 ${percentile(ls, 99).toFixed(1)} ms`];
      }),
    );
  console.log('by operation, second minute:', opTable(minutes[1]));
  console.log('by operation, last minute:', opTable(minutes[minutes.length - 1]));
  const sizes = await db.pool.query(
    `select relname as table, n_live_tup::int as rows, pg_size_pretty(pg_total_relation_size(relid)) as size
       from pg_stat_user_tables where relname in ('bookings', 'booking_events', 'webhook_messages', 'webhook_deliveries', 'email_outbox',
                                                  'idempotency_keys', '_private_jobs') order by relname`,
  );
  console.table(sizes.rows);
  console.log('requests by route and status:', Object.fromEntries([...statusCounts].sort()));
  console.log(`webhook deliveries received: ${rx.counts.ok} answered 200, ${rx.counts.refused} answered 503`);

  const maxRss = Math.max(...rssPoints.map((p) => p.y));
  const half = rssPoints.filter((p) => p.x >= SECONDS / 120);
  const growth = slope(half);
  // every request of minutes 2 to the middle against every request of the rest
  const middle = Math.max(2, Math.floor(minutes.length / 2));
  const pooled = (ms: Minute[]) => ms.flatMap((m) => m.latencies).sort((a, b) => a - b);
  const [early, late] = [pooled(minutes.slice(1, middle)), pooled(minutes.slice(middle))];
  const halves = `minutes 2–${middle} (${early.length} requests) vs ${middle + 1}–${minutes.length} (${late.length})`;
  const [p50Early, p50Late, p99Early, p99Late] = [percentile(early, 50), percentile(late, 50), percentile(early, 99), percentile(late, 99)];
  const change = (a: number, b: number) => (b - a) / a;
  const p50Change = early.length && late.length ? change(p50Early, p50Late) : NaN;
  const p99Change = early.length && late.length ? change(p99Early, p99Late) : NaN;
  const fmt = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)} %`;
  const checks = [
    [`RSS max ${maxRss.toFixed(1)} MB ≤ ${RSS_LIMIT_MB} MB`, maxRss <= RSS_LIMIT_MB],
    [
      `RSS slope over the last half ${growth.toFixed(2)} MB/min ≤ ${SLOPE_LIMIT_MB_PER_MIN} MB/min (${half.length} samples)`,
      growth <= SLOPE_LIMIT_MB_PER_MIN,
    ],
    [
      `p50, ${halves}: ${p50Early.toFixed(1)} → ${p50Late.toFixed(1)} ms (${fmt(p50Change)}, within ±${FLAT * 100} %)`,
      Math.abs(p50Change) <= FLAT,
    ],
    [
      `p99, the same halves: ${p99Early.toFixed(1)} → ${p99Late.toFixed(1)} ms (${fmt(p99Change)}, within ±${FLAT * 100} %)`,
      Math.abs(p99Change) <= FLAT,
    ],
    [`no 5xx or failed request (${rows.reduce((s, r) => s + r['5xx/err'], 0)})`, rows.every((r) => r['5xx/err'] === 0)],
  ] as const;
  console.log(
    `\n${SECONDS} s at ${RATE} req/s (${LANES} lanes), load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end`,
  );
  for (const [what, ok] of checks) console.log(`${ok ? 'PASS' : 'FAIL'}  ${what}`);
  console.log(`verdict: ${checks.every(([, ok]) => ok) ? 'PASS' : 'FAIL'}`);
} finally {
  if (service) await stop(service);
  await rx.close();
  if (process.env.BENCH_KEEP_DB) console.log(`kept database ${db.url}`);
  else await db.drop();
}
