import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { until } from '../helpers/webhook-events.ts';
import { introBody, slots } from './bookings-helpers.ts';

// A subscriber whose endpoint answers slowly (inside the 5 s limit, so it is never disabled) held a
// worker slot per attempt: with every slot waiting on it, routing waited too, and bookings stayed
// DRAFT for seconds. A send no longer holds its job's slot (src/domain/webhooks/sends.ts).

let t: TestApp;
let rx: HttpsReceiver;
before(async () => {
  rx = await startHttpsReceiver();
  rx.reply = () => ({ status: 200, hangMs: 4000 });
  t = await startApp({ worker: true, env: { WEBHOOK_CA_FILE: rx.caFile, WORKER_CONCURRENCY: '2' } });
  const hook = await t.request('POST', '/v1/webhooks', {
    key: KEYS.secret,
    body: { url: `${rx.origin}/slow`, events: ['BOOKING_CREATED'] },
  });
  assert.equal(hook.status, 201, hook.text);
});
after(async () => {
  await t.close();
  await rx.close();
});

it('bookings are routed at once while a slow subscriber holds their BOOKING_CREATED attempts', async () => {
  const from = new Date(Date.now() + 2 * 86_400_000);
  const list = await slots(t, 'et_intro_call', from.toISOString(), new Date(from.getTime() + 14 * 86_400_000).toISOString());
  const starts = list.map((s) => s.start).filter((_s, i) => i % 7 === 0);
  assert.ok(starts.length >= 4, 'enough free slots');
  const began = Date.now();
  const ids: string[] = [];
  for (const start of starts.slice(0, 4)) {
    const res = await t.request('POST', '/v1/bookings', { key: KEYS.secret, body: introBody(start) });
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.booking.id);
  }
  await until(
    async () => {
      const r = await t.db.pool.query(`select count(*)::int as n from bookings where id = any($1) and status <> 'DRAFT'`, [ids]);
      return r.rows[0].n === ids.length;
    },
    10_000,
    'all four routed',
  );
  const routedIn = Date.now() - began;
  // with 2 worker slots, each held 4 s by an attempt, the third booking's routing waited about 4 s
  assert.ok(routedIn < 2500, `routed in ${routedIn} ms`);
  assert.equal((await rx.waitFor(4, { path: '/slow', timeoutMs: 5000 })).length, 4, 'every attempt was made meanwhile');
});
