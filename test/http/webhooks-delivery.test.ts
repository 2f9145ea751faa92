import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { recordBookingEvent, until, verifyDelivery } from '../helpers/webhook-events.ts';

const ALL = [
  'BOOKING_CREATED',
  'BOOKING_UPDATED',
  'BOOKING_CANCELLED',
  'BOOKING_RESCHEDULED',
  'BOOKING_COMPLETED',
  'BOOKING_NO_SHOW',
  'ASSIGNMENT_CHANGED',
] as const;

let t: TestApp;
let rx: HttpsReceiver;

async function createWebhook(path: string, events: readonly string[], key: string = KEYS.secret) {
  const res = await t.request('POST', '/v1/webhooks', { key, body: { url: `${rx.origin}${path}`, events, description: path } });
  assert.equal(res.status, 201, res.text);
  return res.body.webhook as { id: string; secret: string };
}

async function history(id: string, query = '') {
  const res = await t.request('GET', `/v1/webhooks/${id}/deliveries${query}`, { key: KEYS.secret });
  assert.equal(res.status, 200, res.text);
  return res.body as {
    deliveries: Array<Record<string, unknown>>;
    pagination: { total: number; limit: number; offset: number; has_more: boolean };
  };
}

before(async () => {
  rx = await startHttpsReceiver();
  t = await startApp({ worker: true, env: { WEBHOOK_CA_FILE: rx.caFile, WEBHOOK_RETRY_SCHEDULE: '0.1,0.1,0.1' } });
});
after(async () => {
  await t.close();
  await rx.close();
});

describe('webhook delivery from the bookings outbox', () => {
  it('delivers each of the seven events, signed so that standardwebhooks verifies it', async () => {
    const hook = await createWebhook('/all', ALL);
    const sent = [];
    for (const type of ALL) sent.push({ type, ...(await recordBookingEvent(t.db.pool, type)) });
    const got = await rx.waitFor(ALL.length, { path: '/all' });
    const payloads = got.map((r) => verifyDelivery(hook.secret, r));
    for (const s of sent) {
      const p = payloads.find((x) => x.event === s.type);
      assert.ok(p, `${s.type} arrived`);
      assert.equal(p.webhook_id, hook.id);
      assert.deepEqual(p.data, s.booking);
      assert.ok(!Number.isNaN(Date.parse(p.timestamp)));
      assert.deepEqual(Object.keys(p).sort(), ['data', 'event', 'timestamp', 'webhook_id']);
    }
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, ALL.length, 'one webhook-id per event');
    const h = await until(
      async () => {
        const page = await history(hook.id);
        return page.deliveries.filter((d) => d.status === 'succeeded').length === ALL.length && page;
      },
      5000,
      'seven succeeded records',
    );
    const d = h.deliveries[0]!;
    assert.deepEqual(
      Object.keys(d).sort(),
      [
        'attempt',
        'created_at',
        'duration_ms',
        'error',
        'event',
        'event_id',
        'id',
        'message_id',
        'next_attempt_at',
        'response_status',
        'status',
        'webhook_id',
      ].sort(),
    );
    assert.equal(d.response_status, 200);
    assert.equal(d.attempt, 1);
  });

  it('sends an event only to subscriptions listing it, BOOKING_UPDATED to every active one, within one organization and mode', async () => {
    const created = await createWebhook('/created-only', ['BOOKING_CREATED']);
    const cancelled = await createWebhook('/cancelled-only', ['BOOKING_CANCELLED']);
    const live = await createWebhook('/live', ALL, KEYS.live);
    const other = await createWebhook('/other-org', ALL, KEYS.other);
    const disabled = await createWebhook('/disabled', ALL);
    assert.equal((await t.request('PATCH', `/v1/webhooks/${disabled.id}`, { key: KEYS.secret, body: { is_active: false } })).status, 200);

    await recordBookingEvent(t.db.pool, 'BOOKING_CREATED');
    await recordBookingEvent(t.db.pool, 'BOOKING_UPDATED');
    const [c1, c2] = await rx.waitFor(2, { path: '/created-only' });
    assert.deepEqual([verifyDelivery(created.secret, c1!).event, verifyDelivery(created.secret, c2!).event].sort(), [
      'BOOKING_CREATED',
      'BOOKING_UPDATED',
    ]);
    const [x] = await rx.waitFor(1, { path: '/cancelled-only' });
    assert.equal(verifyDelivery(cancelled.secret, x!).event, 'BOOKING_UPDATED', 'BOOKING_UPDATED is broadcast whatever the events list');

    // a live event reaches only the live webhook; another organization's event only its own
    const liveEvent = await recordBookingEvent(t.db.pool, 'BOOKING_CREATED', { mode: 'live' });
    const [l] = await rx.waitFor(1, { path: '/live' });
    assert.equal(verifyDelivery(live.secret, l!).data.id, liveEvent.booking.id);
    const globex = await recordBookingEvent(t.db.pool, 'BOOKING_CANCELLED', { organizationId: 'org_globex' });
    const [o] = await rx.waitFor(1, { path: '/other-org' });
    assert.equal(verifyDelivery(other.secret, o!).data.id, globex.booking.id);

    await new Promise((r) => setTimeout(r, 500));
    assert.equal(rx.on('/created-only').length, 2, 'no live, other-org or unlisted event');
    assert.equal(rx.on('/cancelled-only').length, 1);
    assert.equal(rx.on('/live').length, 1, 'test-mode events never reach a live webhook');
    assert.equal(rx.on('/other-org').length, 1);
    assert.equal(rx.on('/disabled').length, 0, 'an inactive webhook receives nothing');
  });

  it('retries a failed delivery with the same webhook-id, one history record per attempt', async () => {
    const hook = await createWebhook('/flaky', ['BOOKING_CANCELLED']);
    let calls = 0;
    const previous = rx.reply;
    rx.reply = (r, path) => (path === '/flaky' && ++calls <= 2 ? { status: 503, body: 'try later' } : previous(r, path));
    const { eventId } = await recordBookingEvent(t.db.pool, 'BOOKING_CANCELLED');
    const got = await rx.waitFor(3, { path: '/flaky', timeoutMs: 15_000 });
    rx.reply = previous;
    for (const r of got) verifyDelivery(hook.secret, r);
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 1, 'retries reuse the webhook-id');

    const page = await until(
      async () => {
        const h = await history(hook.id);
        return h.deliveries.some((d) => d.status === 'succeeded') && h;
      },
      5000,
      'the successful attempt recorded',
    );
    assert.deepEqual(
      page.deliveries.map((d) => [d.attempt, d.status, d.response_status]),
      [
        [3, 'succeeded', 200],
        [2, 'failed', 503],
        [1, 'failed', 503],
      ],
    );
    assert.ok(page.deliveries.every((d) => d.event_id === eventId && d.event === 'BOOKING_CANCELLED' && typeof d.duration_ms === 'number'));
    assert.match(String(page.deliveries[2]!.error), /HTTP 503: try later/);
    assert.ok(page.deliveries[1]!.next_attempt_at && page.deliveries[2]!.next_attempt_at, 'failed attempts say when the next one is');
    assert.equal(page.deliveries[0]!.next_attempt_at, null);
    assert.deepEqual(page.pagination, { total: 3, limit: 20, offset: 0, has_more: false });

    const failed = await history(hook.id, '?success=false');
    assert.deepEqual(
      failed.deliveries.map((d) => d.attempt),
      [2, 1],
    );
    const ok = await history(hook.id, '?success=true&limit=1');
    assert.deepEqual(
      ok.deliveries.map((d) => d.attempt),
      [3],
    );
    const paged = await history(hook.id, '?limit=1&offset=1');
    assert.deepEqual(paged.pagination, { total: 3, limit: 1, offset: 1, has_more: true });
    assert.equal(paged.deliveries[0]!.attempt, 2);
    assert.equal((await history(hook.id, '?event_type=BOOKING_CREATED')).pagination.total, 0);
    assert.equal((await history(hook.id, '?eventType=BOOKING_CANCELLED&event_type=BOOKING_CANCELLED')).pagination.total, 3);

    const stats = await t.request('GET', `/v1/webhooks/${hook.id}/stats`, { key: KEYS.secret });
    assert.equal(stats.status, 200);
    assert.equal(stats.body.stats.total_attempts, 3);
    assert.equal(stats.body.stats.succeeded, 1);
    assert.equal(stats.body.stats.failed, 2);
    assert.equal(stats.body.stats.success_rate, 0.3333);
    assert.equal(stats.body.stats.consecutive_failures, 0, 'a success resets the count');
    assert.ok(stats.body.stats.last_success_at && stats.body.stats.last_failure_at);
  });

  it("gives up after the schedule's attempts", async () => {
    const hook = await createWebhook('/down', ['BOOKING_NO_SHOW']);
    const previous = rx.reply;
    rx.reply = (r, path) => (path === '/down' ? { status: 500 } : previous(r, path));
    await recordBookingEvent(t.db.pool, 'BOOKING_NO_SHOW');
    await rx.waitFor(3, { path: '/down', timeoutMs: 15_000 });
    const page = await until(
      async () => {
        const h = await history(hook.id);
        return h.deliveries.length === 3 && h.deliveries.every((d) => d.status === 'failed') && h;
      },
      5000,
      'three failed records',
    );
    assert.equal(page.deliveries[0]!.next_attempt_at, null, 'no attempt after the last');
    await new Promise((r) => setTimeout(r, 2500));
    rx.reply = previous;
    assert.equal(rx.on('/down').length, 3, 'WEBHOOK_RETRY_SCHEDULE of three entries: three attempts');
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const hook = await createWebhook('/moved', ['BOOKING_COMPLETED']);
    const previous = rx.reply;
    rx.reply = (r, path) => (path === '/moved' ? { status: 302, headers: { location: `${rx.origin}/moved-target` } } : previous(r, path));
    await recordBookingEvent(t.db.pool, 'BOOKING_COMPLETED');
    await rx.waitFor(1, { path: '/moved' });
    const page = await until(
      async () => {
        const h = await history(hook.id);
        return h.deliveries.length > 0 && h.deliveries[h.deliveries.length - 1]!.status === 'failed' && h;
      },
      5000,
      'a failed record',
    );
    const first = page.deliveries[page.deliveries.length - 1]!;
    assert.equal(first.response_status, 302);
    assert.match(String(first.error), /redirects are not followed/);
    await rx.waitFor(3, { path: '/moved', timeoutMs: 15_000 });
    rx.reply = previous;
    assert.equal(rx.on('/moved-target').length, 0, 'the redirect target is never called');
  });

  it('gives up on a receiver slower than 5 s, and a slow receiver delays no other', async () => {
    const slow = await createWebhook('/slow', ['BOOKING_RESCHEDULED']);
    const fast = await createWebhook('/fast', ['BOOKING_RESCHEDULED']);
    const previous = rx.reply;
    rx.reply = (r, path) => (path === '/slow' ? { status: 200, hangMs: 7000 } : previous(r, path));
    await recordBookingEvent(t.db.pool, 'BOOKING_RESCHEDULED');
    const [slowReq] = await rx.waitFor(1, { path: '/slow' });
    const [fastReq] = await rx.waitFor(1, { path: '/fast', timeoutMs: 2000 });
    assert.ok(Math.abs(fastReq!.at - slowReq!.at) < 1000, 'the fast receiver got the event while the slow one held its request');
    verifyDelivery(fast.secret, fastReq!);
    const page = await until(
      async () => {
        const h = await history(slow.id);
        return h.deliveries.some((d) => d.status === 'failed') && h;
      },
      9000,
      'the timed-out attempt recorded',
    );
    rx.reply = previous;
    const first = page.deliveries.find((d) => d.attempt === 1)!;
    assert.equal(first.status, 'failed');
    assert.equal(first.response_status, null);
    assert.match(String(first.error), /timeout/);
    assert.ok(Number(first.duration_ms) >= 4900 && Number(first.duration_ms) < 6500, `about 5 s, was ${first.duration_ms}`);
  });

  it('signs every attempt after a rotation with the new secret, retries included', async () => {
    const hook = await createWebhook('/rotate', ['ASSIGNMENT_CHANGED']);
    let calls = 0;
    const previous = rx.reply;
    rx.reply = (r, path) => (path === '/rotate' && ++calls === 1 ? { status: 500 } : previous(r, path));
    await recordBookingEvent(t.db.pool, 'ASSIGNMENT_CHANGED');
    const [first] = await rx.waitFor(1, { path: '/rotate' });
    const rot = await t.request('POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: KEYS.secret });
    assert.equal(rot.status, 200, rot.text);
    const rotated: { secret: string } = rot.body.webhook;
    assert.equal(rot.body.success, true);
    assert.equal(rot.body.webhook.id, hook.id);
    assert.match(rot.body.webhook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(rot.body.webhook.secret, hook.secret);
    assert.ok(!Number.isNaN(Date.parse(rot.body.webhook.rotated_at)));
    verifyDelivery(hook.secret, first!);

    const [, retry] = await rx.waitFor(2, { path: '/rotate', timeoutMs: 15_000 });
    rx.reply = previous;
    assert.equal(retry!.headers['webhook-id'], first!.headers['webhook-id']);
    assert.throws(() => verifyDelivery(hook.secret, retry!), 'the old secret no longer verifies');
    verifyDelivery(rotated.secret, retry!);

    await recordBookingEvent(t.db.pool, 'ASSIGNMENT_CHANGED');
    const [, , fresh] = await rx.waitFor(3, { path: '/rotate' });
    assert.throws(() => verifyDelivery(hook.secret, fresh!));
    assert.equal(verifyDelivery(rotated.secret, fresh!).event, 'ASSIGNMENT_CHANGED');
    const read = await t.request('GET', `/v1/webhooks/${hook.id}`, { key: KEYS.secret });
    assert.equal(read.body.webhook.secret, undefined);
    assert.equal(read.body.webhook.rotated_at, rot.body.webhook.rotated_at);
  });

  it('test endpoint: a BOOKING_CREATED event marked as a test, once a minute per webhook', async () => {
    const hook = await createWebhook('/ping', ['BOOKING_CANCELLED']);
    const other = await createWebhook('/ping2', ['BOOKING_CANCELLED']);
    const res = await t.request('POST', `/v1/webhooks/${hook.id}/test`, { key: KEYS.secret });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.test.event, 'BOOKING_CREATED');
    const [r] = await rx.waitFor(1, { path: '/ping' });
    const p = verifyDelivery(hook.secret, r!);
    assert.equal(p.event, 'BOOKING_CREATED');
    assert.equal(p.test, true);
    assert.equal(p.webhook_id, hook.id);
    assert.equal(p.data.id, 'bkg_test_sample');
    assert.equal(r!.headers['webhook-id'], res.body.test.message_id);

    const again = await t.request('POST', `/v1/webhooks/${hook.id}/test`, { key: KEYS.secret });
    assert.equal(again.status, 429);
    assert.equal(again.body.error.code, 'rate_limit_exceeded');
    const retryAfter = Number(again.headers.get('retry-after'));
    assert.ok(retryAfter >= 58 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal((await t.request('POST', `/v1/webhooks/${other.id}/test`, { key: KEYS.secret })).status, 200, 'the limit is per webhook');

    // kept in the database: a minute later (as another process would see it) the test is allowed again
    await t.db.pool.query(`update webhooks set last_test_at = last_test_at - interval '61 seconds' where id = $1`, [hook.id]);
    assert.equal((await t.request('POST', `/v1/webhooks/${hook.id}/test`, { key: KEYS.secret })).status, 200);
    const h = await until(
      async () => {
        const page = await history(hook.id);
        return page.deliveries.length === 2 && page.deliveries.every((d) => d.status === 'succeeded') && page;
      },
      5000,
      'two test deliveries recorded',
    );
    assert.ok(h.deliveries.every((d) => String(d.event_id).startsWith('evt_test_')));
  });
});
