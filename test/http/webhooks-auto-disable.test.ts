import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { recordBookingEvent, until, verifyDelivery } from '../helpers/webhook-events.ts';

let t: TestApp;
let rx: HttpsReceiver;

before(async () => {
  rx = await startHttpsReceiver();
  // twelve immediate attempts per event: one event alone can fail ten times in a row
  t = await startApp({ worker: true, env: { WEBHOOK_CA_FILE: rx.caFile, WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0,0,0,0,0,0,0' } });
});
after(async () => {
  await t.close();
  await rx.close();
});

const stats = async (id: string) => (await t.request('GET', `/v1/webhooks/${id}/stats`, { key: KEYS.secret })).body.stats;

describe('auto-disable', () => {
  it('disables a webhook after 10 consecutive failed attempts, stops its retries, and PATCH re-enables it', async () => {
    let failing = true;
    rx.reply = () => (failing ? { status: 500, body: 'boom' } : { status: 200 });
    const res = await t.request('POST', '/v1/webhooks', {
      key: KEYS.secret,
      body: { url: `${rx.origin}/down`, events: ['BOOKING_CREATED'] },
    });
    const hook = res.body.webhook;
    await recordBookingEvent(t.db.pool, 'BOOKING_CREATED');
    const disabled = await until(
      async () => {
        const w = (await t.request('GET', `/v1/webhooks/${hook.id}`, { key: KEYS.secret })).body.webhook;
        return w.is_active === false && w;
      },
      15_000,
      'the webhook disabled',
    );
    assert.match(disabled.failure_reason, /10 consecutive failed delivery attempts; last error: HTTP 500: boom/);
    assert.ok(disabled.updated_at > hook.updated_at, 'auto-disable is a change: updated_at moves');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(rx.on('/down').length, 10, 'the eleventh and twelfth attempts are never made');
    const s = await stats(hook.id);
    assert.equal(s.failed, 10);
    assert.equal(s.consecutive_failures, 10);
    assert.equal(s.is_active, false);
    const h = (await t.request('GET', `/v1/webhooks/${hook.id}/deliveries?limit=1`, { key: KEYS.secret })).body;
    assert.equal(h.deliveries[0].attempt, 10);
    assert.equal(h.deliveries[0].next_attempt_at, null);

    // events while disabled are not queued for it
    await recordBookingEvent(t.db.pool, 'BOOKING_CREATED');
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(rx.on('/down').length, 10);

    // a test event still goes out (to check a fix); its success ends the streak, as any success
    // does (decisions §5), but re-enabling stays the owner's call
    failing = false;
    assert.equal((await t.request('POST', `/v1/webhooks/${hook.id}/test`, { key: KEYS.secret })).status, 200);
    const [, , , , , , , , , , ping] = await rx.waitFor(11, { path: '/down' });
    assert.equal(verifyDelivery(hook.secret, ping!).test, true);
    await until(async () => (await stats(hook.id)).succeeded === 1, 5000, 'the test recorded');
    assert.equal((await stats(hook.id)).consecutive_failures, 0);
    assert.equal((await stats(hook.id)).is_active, false);

    const enabled = await t.request('PATCH', `/v1/webhooks/${hook.id}`, { key: KEYS.secret, body: { is_active: true } });
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.webhook.is_active, true);
    assert.equal(enabled.body.webhook.failure_reason, null);
    assert.equal((await stats(hook.id)).consecutive_failures, 0);
    const { booking } = await recordBookingEvent(t.db.pool, 'BOOKING_CREATED');
    const got = await rx.waitFor(12, { path: '/down' });
    assert.equal(verifyDelivery(hook.secret, got[11]!).data.id, booking.id);
  });

  it('counts failures across events, and any success resets the count', async () => {
    let status = 500;
    rx.reply = () => ({ status });
    const res = await t.request('POST', '/v1/webhooks', {
      key: KEYS.secret,
      body: { url: `${rx.origin}/streak`, events: ['BOOKING_CANCELLED'] },
    });
    const hook = res.body.webhook;
    // attempt 1 fails, the retries then succeed: a streak of 1 that the success ends
    rx.reply = (_r, path) => (path === '/streak' && rx.on('/streak').length <= 1 ? { status: 500 } : { status });
    status = 200;
    await recordBookingEvent(t.db.pool, 'BOOKING_CANCELLED');
    await rx.waitFor(2, { path: '/streak' });
    await until(async () => (await stats(hook.id)).succeeded === 1, 5000, 'success recorded');
    assert.equal((await stats(hook.id)).consecutive_failures, 0);
    // nine failures on one event, then another event fails once more: ten across events
    await t.db.pool.query('update webhooks set consecutive_failures = 9 where id = $1', [hook.id]);
    rx.reply = () => ({ status: 500 });
    await recordBookingEvent(t.db.pool, 'BOOKING_CANCELLED');
    const w = await until(
      async () => {
        const x = (await t.request('GET', `/v1/webhooks/${hook.id}`, { key: KEYS.secret })).body.webhook;
        return x.is_active === false && x;
      },
      10_000,
      'disabled',
    );
    assert.ok(w.failure_reason);
    assert.equal(rx.on('/streak').length, 3, 'one attempt of the second event made the tenth failure');
  });

  it('a test delivery counts like any attempt: a failure adds to the streak (no retry), a success ends it', async () => {
    let status = 503;
    rx.reply = (_r, path) => (path === '/probe' ? { status } : { status: 200 });
    const hook = (
      await t.request('POST', '/v1/webhooks', { key: KEYS.secret, body: { url: `${rx.origin}/probe`, events: ['BOOKING_NO_SHOW'] } })
    ).body.webhook;
    assert.equal((await t.request('POST', `/v1/webhooks/${hook.id}/test`, { key: KEYS.secret })).status, 200);
    await until(async () => (await stats(hook.id)).failed === 1, 5000, 'the failed test recorded');
    assert.equal((await stats(hook.id)).consecutive_failures, 1);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(rx.on('/probe').length, 1, 'a test is one attempt');
    status = 200;
    await t.db.pool.query('update webhooks set last_test_at = null where id = $1', [hook.id]); // past the 1-per-minute limit
    assert.equal((await t.request('POST', `/v1/webhooks/${hook.id}/test`, { key: KEYS.secret })).status, 200);
    await until(async () => (await stats(hook.id)).succeeded === 1, 5000, 'the test success recorded');
    assert.equal((await stats(hook.id)).consecutive_failures, 0);
  });
});
