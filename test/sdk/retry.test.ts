import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ApiError, ConnectionError, RateLimitError, createClient } from '../../sdk/src/index.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';

interface Attempt {
  method: string;
  status: number;
  sentAt: number;
  answeredAt: number;
  idempotencyKey: string | null;
  retryAfter: string | null;
}

/** A fetch that records every attempt the client makes. */
function recorder() {
  const attempts: Attempt[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const sentAt = Date.now();
    const res = await fetch(input, init);
    attempts.push({
      method: String(init?.method),
      status: res.status,
      sentAt,
      answeredAt: Date.now(),
      idempotencyKey: new Headers(init?.headers).get('idempotency-key'),
      retryAfter: res.headers.get('retry-after'),
    });
    return res;
  };
  return { attempts, fetchImpl };
}

describe('429 from the real service: the client waits Retry-After, then retries', () => {
  let t: TestApp;
  let ticking: NodeJS.Timeout;

  before(async () => {
    // One request per minute for test keys, on a clock that runs from 2.5 s before a minute
    // ends: the second request is refused with a Retry-After of a few seconds, and a retry
    // after that wait falls in the next window.
    const start = Date.parse('2026-12-01T06:00:57.500Z');
    t = await startApp({ now: new Date(start), env: { RATE_LIMIT_TEST_PER_MINUTE: '1' } });
    const realStart = Date.now();
    ticking = setInterval(() => (t.clock.now = new Date(start + Date.now() - realStart)), 5);
  });
  after(async () => {
    clearInterval(ticking);
    await t?.close();
  });

  it('retries after the Retry-After seconds and succeeds; with no retries left it throws RateLimitError', async () => {
    const { attempts, fetchImpl } = recorder();
    const client = createClient({ apiKey: KEYS.secret, baseUrl: t.url, fetch: fetchImpl });
    await client.eventTypes.list();
    const refusedNow = await client.eventTypes.list({ maxRetries: 0 }).catch((e: unknown) => e);
    assert.ok(refusedNow instanceof RateLimitError, String(refusedNow));
    assert.equal(refusedNow.code, 'rate_limit_exceeded');
    assert.ok(refusedNow.retryAfterSeconds! >= 1 && refusedNow.retryAfterSeconds! <= 3, `Retry-After ${refusedNow.retryAfterSeconds}`);

    const types = await client.eventTypes.list();
    assert.ok(types.length > 0);
    const [, , refused, retried] = attempts;
    assert.deepEqual(
      attempts.map((a) => a.status),
      [200, 429, 429, 200],
    );
    const asked = Number(refused!.retryAfter) * 1000;
    const waited = retried!.sentAt - refused!.answeredAt;
    assert.ok(waited >= asked, `waited ${waited} ms, Retry-After asked ${asked}`);
    assert.ok(waited < asked + 1000, `waited ${waited} ms, not a long backoff`);
  });

  it('throws at once when Retry-After is longer than maxRetryAfterMs', async () => {
    const { attempts, fetchImpl } = recorder();
    const client = createClient({ apiKey: KEYS.secret, baseUrl: t.url, fetch: fetchImpl, maxRetryAfterMs: 500 });
    // exhaust this window, then one refused call without waiting
    await client.eventTypes.list().catch(() => undefined);
    attempts.length = 0;
    const started = Date.now();
    const err = await client.eventTypes.list().catch((e: unknown) => e);
    assert.ok(err instanceof RateLimitError);
    assert.equal(attempts.length, 1);
    assert.ok(Date.now() - started < 500);
  });
});

describe('5xx and network errors: only requests safe to repeat are retried', () => {
  let server: http.Server;
  let base: string;
  const seen: { method: string; url: string; key: string | undefined }[] = [];
  /** Statuses to answer, in order, per "METHOD path"; then 200. */
  const script = new Map<string, number[]>();

  before(async () => {
    server = http.createServer((req, res) => {
      const id = `${req.method} ${req.url}`;
      seen.push({ method: req.method!, url: req.url!, key: req.headers['idempotency-key'] as string | undefined });
      const status = script.get(id)?.shift() ?? 200;
      const body =
        status === 200
          ? { success: true, booking: { id: 'bkg_1' }, event_types: [] }
          : { success: false, error: { type: 'api_error', code: 'internal_error', message: 'the database is restarting' } };
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-${seen.length}` }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = () => createClient({ apiKey: 'sk_test_x', baseUrl: base, retryBaseDelayMs: 10 });

  it('retries a GET on 503 with backoff', async () => {
    seen.length = 0;
    script.set('GET /v1/event-types', [503, 502]);
    assert.deepEqual(await client().eventTypes.list(), []);
    assert.equal(seen.length, 3);
  });

  it('retries a POST on 500 with the same Idempotency-Key, so the service sees one request', async () => {
    seen.length = 0;
    script.set('POST /v1/bookings/bkg_1/confirm', [500]);
    assert.equal((await client().bookings.confirm('bkg_1')).id, 'bkg_1');
    assert.equal(seen.length, 2);
    assert.ok(seen[0]!.key);
    assert.equal(seen[1]!.key, seen[0]!.key);
  });

  it('does not retry a PATCH (no Idempotency-Key), and gives up after maxRetries', async () => {
    seen.length = 0;
    script.set('PATCH /v1/bookings/bkg_1', [500]);
    const err = await client()
      .bookings.update('bkg_1', { attendee: { name: 'X' } })
      .catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 500);
    assert.equal(err.requestId, 'req-1');
    assert.equal(seen.length, 1);

    seen.length = 0;
    script.set('GET /v1/bookings/bkg_2', [500, 500, 500, 500]);
    const spent = await client()
      .bookings.get('bkg_2')
      .catch((e: unknown) => e);
    assert.ok(spent instanceof ApiError);
    assert.equal(seen.length, 3, 'one try and two retries');
  });

  it('retries a network error, then throws ConnectionError', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const attempts: number[] = [];
    const c = createClient({
      apiKey: 'sk_test_x',
      baseUrl: `http://127.0.0.1:${port}`,
      retryBaseDelayMs: 10,
      fetch: (input, init) => {
        attempts.push(Date.now());
        return fetch(input, init);
      },
    });
    const err = await c.bookings.get('bkg_1').catch((e: unknown) => e);
    assert.ok(err instanceof ConnectionError, String(err));
    assert.equal(err.status, 0);
    assert.equal(attempts.length, 3);
  });
});
