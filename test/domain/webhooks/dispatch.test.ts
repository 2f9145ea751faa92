import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../../src/config.ts';
import { recordSuccesses } from '../../../src/db/queries/webhook-deliveries.ts';
import { loadSeed } from '../../../src/domain/seed/load.ts';
import { validateSeed } from '../../../src/domain/seed/validate.ts';
import { deliverMessage } from '../../../src/domain/webhooks/deliver.ts';
import { dispatchEvent } from '../../../src/domain/webhooks/dispatch.ts';
import { createDeliveryClient } from '../../../src/domain/webhooks/http-client.ts';
import { createSends } from '../../../src/domain/webhooks/sends.ts';
import { createWebhook, updateWebhook } from '../../../src/domain/webhooks/manage.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createTestDatabase } from '../../helpers/db.ts';
import { testSeed } from '../../helpers/fixtures.ts';
import type { HttpsReceiver } from '../../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../../helpers/https-receiver.ts';
import { recordBookingEvent, verifyDelivery } from '../../helpers/webhook-events.ts';

let db: TestDatabase;
let rx: HttpsReceiver;
const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'silent' });
let client: ReturnType<typeof createDeliveryClient>;

before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
  rx = await startHttpsReceiver();
  client = createDeliveryClient({ allowPrivate: true, caFile: rx.caFile });
});
after(async () => {
  await client.close();
  await rx.close();
  await db.drop();
});

const log = pino({ level: 'silent' });
const sends = createSends(16, log);
const deps = () => ({ db: db.pool, config, now: () => new Date(), client, log, sends, sentBy: null });
// the job ends once its sends have started; these wait for them too
const dispatch = async (eventId: string) => {
  const made = await dispatchEvent(deps(), eventId);
  await sends.drain();
  return made;
};
const deliver = async (p: { messageId: string; position: number }) => {
  await deliverMessage(deps(), p);
  await sends.drain();
};
const jobs = async () =>
  (
    await db.pool
      .query(`select j.payload, j.key from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
   where k.identifier = 'deliver-webhook'`)
  ).rows;
const scope = { organizationId: 'org_northwind', mode: 'test' as const };

describe('dispatchEvent: fan-out and first attempts started by the dispatch job', () => {
  it('makes the first attempt of every matching subscription itself, queues no job, and a rerun does nothing', async () => {
    const a = await createWebhook(db.pool, scope, { url: `${rx.origin}/a`, events: ['BOOKING_CREATED'] }, config, new Date());
    const b = await createWebhook(db.pool, scope, { url: `${rx.origin}/b`, events: ['BOOKING_CREATED'] }, config, new Date());
    const { eventId, booking } = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    assert.equal(await dispatch(eventId), 2);
    assert.equal(verifyDelivery(a.secret, rx.on('/a')[0]!).data.id, booking.id);
    assert.equal(verifyDelivery(b.secret, rx.on('/b')[0]!).data.id, booking.id);
    assert.deepEqual(await jobs(), [], 'no deliver-webhook job for a first attempt that succeeded');
    const records = (await db.pool.query(`select attempt, status, response_status from webhook_deliveries where event_id = $1`, [eventId]))
      .rows;
    assert.deepEqual(records, [
      { attempt: 1, status: 'succeeded', response_status: 200 },
      { attempt: 1, status: 'succeeded', response_status: 200 },
    ]);

    assert.equal(await dispatch(eventId), 0, 'at-least-once: a second run of the job adds and sends nothing');
    assert.equal(rx.on('/a').length, 1);
    await db.pool.query('delete from webhooks');
  });

  it('a failed first attempt queues its retry at position 2 under the message job key', async () => {
    rx.reply = () => ({ status: 503, body: 'busy' });
    const w = await createWebhook(db.pool, scope, { url: `${rx.origin}/down`, events: ['BOOKING_CREATED'] }, config, new Date());
    const { eventId } = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    assert.equal(await dispatch(eventId), 1);
    const [job] = await jobs();
    const message = (await db.pool.query(`select id, status, next_position from webhook_messages where event_id = $1`, [eventId])).rows[0];
    assert.deepEqual(job.payload, { messageId: message.id, position: 2 });
    assert.equal(job.key, `webhook-message:${message.id}`);
    assert.deepEqual([message.status, message.next_position], ['pending', 2]);
    const record = (await db.pool.query(`select status, error, next_attempt_at from webhook_deliveries where event_id = $1`, [eventId]))
      .rows[0];
    assert.equal(record.status, 'failed');
    assert.equal(record.error, 'HTTP 503: busy');
    assert.ok(record.next_attempt_at);
    assert.equal((await db.pool.query('select consecutive_failures from webhooks where id = $1', [w.id])).rows[0].consecutive_failures, 1);
    rx.reply = () => ({ status: 200 });

    // disabled before the retry runs: the retry is not made, and the history stops announcing it
    await updateWebhook(db.pool, scope, w.id, { is_active: false }, config, new Date());
    await deliver({ messageId: message.id, position: 2 });
    assert.equal(rx.on('/down').length, 1);
    const after = (await db.pool.query(`select status from webhook_messages where id = $1`, [message.id])).rows[0];
    assert.equal(after.status, 'failed');
    const history = (await db.pool.query(`select next_attempt_at from webhook_deliveries where event_id = $1`, [eventId])).rows;
    assert.deepEqual(history, [{ next_attempt_at: null }]);
    await db.pool.query('delete from webhooks');
  });
});

describe('a retry skipped because the webhook was disabled', () => {
  it('stops announcing that retry alone: earlier attempts keep the retry time they had', async () => {
    rx.reply = () => ({ status: 503, body: 'busy' });
    const w = await createWebhook(db.pool, scope, { url: `${rx.origin}/twice`, events: ['BOOKING_CREATED'] }, config, new Date());
    const { eventId } = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    assert.equal(await dispatch(eventId), 1);
    const message = (await db.pool.query(`select id from webhook_messages where event_id = $1`, [eventId])).rows[0];
    await deliver({ messageId: message.id, position: 2 });
    const history = async () =>
      (await db.pool.query(`select attempt, next_attempt_at from webhook_deliveries where event_id = $1 order by attempt`, [eventId])).rows;
    const [first, second] = await history();
    assert.ok(first.next_attempt_at && second.next_attempt_at, 'both failed attempts announce a retry');
    rx.reply = () => ({ status: 200 });

    await updateWebhook(db.pool, scope, w.id, { is_active: false }, config, new Date());
    await deliver({ messageId: message.id, position: 3 });
    assert.equal(rx.on('/twice').length, 2, 'the third attempt was not made');
    assert.deepEqual(await history(), [
      { attempt: 1, next_attempt_at: first.next_attempt_at },
      { attempt: 2, next_attempt_at: null },
    ]);
    await db.pool.query('delete from webhooks');
  });
});

describe('recordSuccesses', () => {
  it('records many attempts in one statement, says which still owned their message, and resets the streak', async () => {
    const w = await createWebhook(db.pool, scope, { url: `${rx.origin}/x`, events: ['BOOKING_CREATED'] }, config, new Date());
    await db.pool.query(`update webhooks set consecutive_failures = 3 where id = $1`, [w.id]);
    const ids = ['msg_t1', 'msg_t2'];
    for (const [i, id] of ids.entries()) {
      await db.pool.query(
        `insert into webhook_messages (id, webhook_id, event_id, event_type, body, next_position) values ($1, $2, $3, 'BOOKING_CREATED', '{}', $4)`,
        [id, w.id, `evt_t${i}`, 1],
      );
      await db.pool.query(
        `insert into webhook_deliveries (id, message_id, webhook_id, event_id, event_type, attempt, status) values ($1, $2, $3, $4, 'BOOKING_CREATED', 1, 'pending')`,
        [`whd_t${i}`, id, w.id, `evt_t${i}`],
      );
    }
    const owned = await recordSuccesses(db.pool, [
      { deliveryId: 'whd_t0', messageId: 'msg_t1', position: 1, webhookId: w.id, responseStatus: 204, durationMs: 5 },
      { deliveryId: 'whd_t1', messageId: 'msg_t2', position: 2, webhookId: w.id, responseStatus: 200, durationMs: 7 }, // stale position
    ]);
    assert.deepEqual(owned, [true, false]);
    const msgs = (await db.pool.query(`select id, status from webhook_messages where id = any($1) order by id`, [ids])).rows;
    assert.deepEqual(
      msgs.map((m) => m.status),
      ['succeeded', 'pending'],
    );
    const recs = (
      await db.pool.query(
        `select id, status, response_status, duration_ms from webhook_deliveries where id in ('whd_t0', 'whd_t1') order by id`,
      )
    ).rows;
    assert.deepEqual(recs, [
      { id: 'whd_t0', status: 'succeeded', response_status: 204, duration_ms: 5 },
      { id: 'whd_t1', status: 'succeeded', response_status: 200, duration_ms: 7 },
    ]);
    assert.equal((await db.pool.query('select consecutive_failures from webhooks where id = $1', [w.id])).rows[0].consecutive_failures, 0);
  });
});
