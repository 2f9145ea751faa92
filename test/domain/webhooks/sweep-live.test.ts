import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { fanOutAndOpen } from '../../../src/db/queries/webhook-deliveries.ts';
import { LIVENESS_LOCK_NAMESPACE } from '../../../src/db/queries/worker-heartbeats.ts';
import { BROADCAST_EVENTS } from '../../../src/domain/webhooks/events.ts';
import { newDeliveryIdBase, newMessageIdBase } from '../../../src/domain/webhooks/ids.ts';
import { sweepStuckDeliveries } from '../../../src/domain/webhooks/sweep.ts';
import type { TestApp } from '../../helpers/app.ts';
import { startApp } from '../../helpers/app.ts';
import { KEYS } from '../../helpers/fixtures.ts';
import { recordBookingEvent } from '../../helpers/webhook-events.ts';

// The sweeper revives an attempt left pending by a dead worker. It used to revive any attempt
// pending for 15 s, so a live worker's slow attempt (a DNS lookup without a deadline) ran twice.
// Now an attempt whose job a live worker holds is never revived, however old.

let t: TestApp;
let holder: pg.Client;
before(async () => {
  t = await startApp({}); // no worker: the jobs stay where this test puts them
  holder = new pg.Client({ connectionString: t.db.url });
  await holder.connect();
});
after(async () => {
  await holder.end();
  await t.close();
});
const q = (sql: string, params: unknown[] = []) => t.db.pool.query(sql, params);

it('an old pending attempt is left alone while a live worker holds its fan-out job, and revived once that worker is gone', async () => {
  const hook = await t.request('POST', '/v1/webhooks', {
    key: KEYS.secret,
    body: { url: 'https://127.0.0.1:9/hook', events: ['BOOKING_CREATED'] },
  });
  assert.equal(hook.status, 201, hook.text);
  const { eventId } = await recordBookingEvent(t.db.pool, 'BOOKING_CREATED');
  // a worker fetched the fan-out job and opened the first attempt a minute ago; it is still sending
  const opened = await fanOutAndOpen(t.db.pool, eventId!, newMessageIdBase(), newDeliveryIdBase(), [...BROADCAST_EVENTS]);
  assert.equal(opened.length, 1);
  await q(`update webhook_deliveries set created_at = now() - interval '1 minute'`);
  await holder.query('select pg_advisory_lock($1, 5151)', [LIVENESS_LOCK_NAMESPACE]);
  await q(`insert into worker_heartbeats (pool_id, lock_key) values ('pool-live', 5151)`);
  const locked = await q(
    `update graphile_worker._private_jobs set locked_by = 'pool-live', locked_at = now() - interval '1 minute'
                           where payload->>'eventId' = $1`,
    [eventId],
  );
  assert.equal(locked.rowCount, 1, 'the fan-out job');

  assert.equal(await sweepStuckDeliveries(t.db.pool, new Date()), 0, 'a live worker is working on it');

  // the worker dies: its session ends and with it its lock
  await holder.query('select pg_advisory_unlock_all()');
  assert.equal(await sweepStuckDeliveries(t.db.pool, new Date()), 1, 'revived');
  const job = await q(`select key from graphile_worker.jobs where task_identifier = 'deliver-webhook'`);
  assert.equal(job.rows[0]?.key, `webhook-message:${opened[0]!.message.id}`);
});

it('an attempt sent by a live pool after its job ended is left alone for a minute; a dead or vanished sender is revived', async () => {
  await q('delete from webhooks');
  const hook = await t.request('POST', '/v1/webhooks', {
    key: KEYS.secret,
    body: { url: 'https://127.0.0.1:9/hook', events: ['BOOKING_CREATED'] },
  });
  assert.equal(hook.status, 201, hook.text);
  await holder.query('select pg_advisory_lock($1, 5252)', [LIVENESS_LOCK_NAMESPACE]);
  await q(`insert into worker_heartbeats (pool_id, lock_key) values ('pool-sending', 5252)`);
  // the fan-out job ended once its send started (src/domain/webhooks/sends.ts): no job holds it
  const open = async (sentBy: string, age: string) => {
    const { eventId } = await recordBookingEvent(t.db.pool, 'BOOKING_CREATED');
    const [opened] = await fanOutAndOpen(t.db.pool, eventId!, newMessageIdBase(), newDeliveryIdBase(), [...BROADCAST_EVENTS], sentBy);
    await q(`delete from graphile_worker._private_jobs`);
    await q(`update webhook_deliveries set created_at = now() - $2::interval where message_id = $1`, [opened!.message.id, age]);
    return opened!.message.id;
  };
  const sending = await open('pool-sending', '20 seconds');
  assert.equal(await sweepStuckDeliveries(t.db.pool, new Date()), 0, 'its sender lives: still sending');
  const unrecorded = await open('pool-sending', '61 seconds');
  const vanished = await open('pool-recovered-and-deleted', '20 seconds');
  assert.equal(await sweepStuckDeliveries(t.db.pool, new Date()), 2);
  const deliveryJobs = async () =>
    (
      await q(`select j.payload->>'messageId' as id from graphile_worker._private_jobs j
                 join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'deliver-webhook'`)
    ).rows.map((r) => r.id as string);
  assert.deepEqual((await deliveryJobs()).sort(), [unrecorded, vanished].sort());
  await holder.query('select pg_advisory_unlock_all()');
  await q(`delete from graphile_worker._private_jobs`);
  assert.equal(await sweepStuckDeliveries(t.db.pool, new Date()), 3, 'its sender died');
  assert.ok((await deliveryJobs()).includes(sending));
});
