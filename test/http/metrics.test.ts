import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { NOW, created, introBody, waitForStatusChange } from './bookings-helpers.ts';

/** Every log line the app and its worker write, parsed. */
const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
    done();
  },
});

let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW, worker: true, log: pino({ level: 'info' }, sink) });
});
after(async () => {
  await t.close();
});

/** The value of one sample of the exposition (0 when absent), e.g. value(text, 'booking_transitions_total{to="DRAFT"}'). */
function value(text: string, sample: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

async function scrape(headers: Record<string, string> = {}): Promise<string> {
  const res = await t.request('GET', '/metrics', { headers });
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text;
}

describe('GET /metrics', () => {
  it('serves every metric of decisions §9 in the Prometheus text format, without a key', async () => {
    const text = await scrape();
    for (const [name, type] of [
      ['http_request_duration_seconds', 'histogram'],
      ['bookings_created_total', 'counter'],
      ['booking_transitions_total', 'counter'],
      ['booking_routing_seconds', 'histogram'],
      ['jobs_failed_total', 'counter'],
      ['job_queue_depth', 'gauge'],
      ['webhook_attempts_total', 'counter'],
      ['webhook_attempt_duration_seconds', 'histogram'],
      ['emails_total', 'counter'],
      ['calendar_syncs_total', 'counter'],
      ['db_pool_connections_in_use', 'gauge'],
      ['db_pool_waiting_requests', 'gauge'],
    ]) {
      assert.ok(text.includes(`# TYPE ${name} ${type}\n`), `${name} is a ${type}`);
    }
    assert.match(text, /^job_queue_depth \d+$/m);
    assert.match(text, /^db_pool_connections_in_use\{pool="worker"\} \d+$/m);
  });

  it('counts a booking created and routed, its request, and its email, once each', async () => {
    const before = await scrape();
    const booking = await created(t, introBody('2026-12-02T10:00:00Z'));
    await waitForStatusChange(t, booking.id, 'DRAFT');
    // the first email is enqueued by routing; without SMTP_URL it is logged
    let after = await scrape();
    for (let i = 0; i < 100 && value(after, 'emails_total{outcome="logged"}') === value(before, 'emails_total{outcome="logged"}'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await scrape();
    }
    const delta = (sample: string) => value(after, sample) - value(before, sample);
    assert.equal(delta('bookings_created_total'), 1);
    assert.equal(delta('booking_transitions_total{to="DRAFT"}'), 1);
    assert.equal(delta('booking_transitions_total{to="SCHEDULED"}'), 1);
    assert.equal(delta('booking_routing_seconds_count'), 1);
    assert.ok(delta('emails_total{outcome="logged"}') >= 1);
    assert.equal(delta('http_request_duration_seconds_count{method="POST",route="/v1/bookings",status="201"}'), 1);
  });

  it('counts a change of status, and neither a repeated confirm, a PATCH (no change of status) nor a refused cancel', async () => {
    const booking = await created(t, introBody('2026-12-02T11:00:00Z'));
    await waitForStatusChange(t, booking.id, 'DRAFT');
    const before = await scrape();
    assert.equal((await t.request('POST', `/v1/bookings/${booking.id}/confirm`, { key: KEYS.secret })).status, 200, 'SCHEDULED already');
    const patched = await t.request('PATCH', `/v1/bookings/${booking.id}`, { key: KEYS.secret, body: { attendee: { name: 'Renamed' } } });
    assert.equal(patched.status, 200, 'a PATCH changes the booking, not its status');
    assert.equal((await t.request('DELETE', `/v1/bookings/${booking.id}`, { key: KEYS.secret, body: {} })).status, 200);
    assert.equal((await t.request('DELETE', `/v1/bookings/${booking.id}`, { key: KEYS.secret, body: {} })).status, 409);
    const after = await scrape();
    const delta = (sample: string) => value(after, sample) - value(before, sample);
    assert.equal(delta('booking_transitions_total{to="SCHEDULED"}'), 0);
    assert.equal(delta('booking_transitions_total{to="CANCELLED"}'), 1);
  });
});

describe('logs', () => {
  it('writes one line per request, with its route and status, and never a secret from the query string', async () => {
    lines.length = 0;
    const res = await t.request('GET', '/v1/bookings?limit=1&api_key=sk_test_leaked&token=abc', { key: KEYS.secret });
    assert.equal(res.status, 200);
    const requestId = res.headers.get('x-request-id');
    const mine = lines.filter((l) => l.reqId === requestId);
    assert.equal(mine.length, 1, JSON.stringify(mine));
    assert.equal(mine[0].msg, 'request');
    assert.equal(mine[0].route, '/v1/bookings');
    assert.equal(mine[0].status, 200);
    assert.equal(mine[0].url, '/v1/bookings?limit=1&api_key=[redacted]&token=[redacted]');
    assert.ok(!JSON.stringify(lines).includes('sk_test_leaked'));
  });

  it('writes one line per routing decision and per email, naming the booking', async () => {
    lines.length = 0;
    const booking = await created(t, introBody('2026-12-02T12:00:00Z'));
    await waitForStatusChange(t, booking.id, 'DRAFT');
    for (let i = 0; i < 100 && !lines.some((l) => l.bookingId === booking.id && String(l.msg).startsWith('email')); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const routed = lines.filter((l) => l.msg === 'booking routed' && l.bookingId === booking.id);
    assert.equal(routed.length, 1);
    assert.equal(routed[0].status, 'SCHEDULED');
    assert.ok(typeof routed[0].routingMs === 'number');
    assert.ok(lines.some((l) => l.bookingId === booking.id && String(l.msg).startsWith('email')));
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let guarded: TestApp;
  before(async () => {
    guarded = await startApp({ env: { METRICS_TOKEN: 'scrape-me' } });
  });
  after(async () => {
    await guarded.close();
  });

  it('is 401 in the error envelope without the token or with another, 200 with it', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic c2NyYXBlLW1l' }];
    for (const headers of attempts) {
      const res = await guarded.request('GET', '/metrics', { headers });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.type, 'authentication_error');
      assert.ok(res.headers.get('x-request-id'));
    }
    const ok = await guarded.request('GET', '/metrics', { headers: { authorization: 'Bearer scrape-me' } });
    assert.equal(ok.status, 200);
    assert.match(ok.text, /# TYPE bookings_created_total counter/);
  });
});

describe('webhook, email and job failure metrics', () => {
  let w: TestApp;
  let rx: HttpsReceiver;
  before(async () => {
    rx = await startHttpsReceiver();
    rx.reply = (_r, path) => ({ status: path === '/fail' ? 500 : 200 });
    // an SMTP server that refuses connections: every send-email attempt fails and is retried
    w = await startApp({
      now: NOW,
      worker: true,
      env: { WEBHOOK_CA_FILE: rx.caFile, WEBHOOK_RETRY_SCHEDULE: '60', SMTP_URL: `smtp://127.0.0.1:${await closedPort()}` },
    });
  });
  after(async () => {
    await w.close();
    await rx.close();
  });

  it('counts webhook attempts by outcome with their duration, failed email sends, and failed jobs by task', async () => {
    const metrics = async () => (await w.request('GET', '/metrics')).text;
    const before = await metrics();
    for (const path of ['/ok', '/fail']) {
      const res = await w.request('POST', '/v1/webhooks', {
        key: KEYS.secret,
        body: { url: `${rx.origin}${path}`, events: ['BOOKING_CREATED'] },
      });
      assert.equal(res.status, 201, res.text);
    }
    await created(w, introBody('2026-12-02T10:00:00Z'));
    await rx.waitFor(2);
    let after = before;
    const delta = (sample: string) => value(after, sample) - value(before, sample);
    for (let i = 0; i < 200; i++) {
      after = await metrics();
      if (delta('jobs_failed_total{task="send-email"}') >= 1 && delta('webhook_attempts_total{outcome="failure"}') >= 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(delta('webhook_attempts_total{outcome="success"}'), 1);
    assert.equal(delta('webhook_attempts_total{outcome="failure"}'), 1);
    assert.equal(delta('webhook_attempt_duration_seconds_count{outcome="success"}'), 1);
    assert.ok(delta('emails_total{outcome="failed"}') >= 1);
    assert.ok(delta('jobs_failed_total{task="send-email"}') >= 1);
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
