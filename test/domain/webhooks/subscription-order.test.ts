import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { transaction } from '../../../src/db/pool.ts';
import { insertWebhook, lockSubscriptions } from '../../../src/db/queries/webhooks.ts';
import { loadSeed } from '../../../src/domain/seed/load.ts';
import { validateSeed } from '../../../src/domain/seed/validate.ts';
import { createWebhook, updateWebhook } from '../../../src/domain/webhooks/manage.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createTestDatabase } from '../../helpers/db.ts';
import { testSeed } from '../../helpers/fixtures.ts';
import { recordBookingEvent } from '../../helpers/webhook-events.ts';

// recordEvent enqueues the fan-out job only when the organization and mode has an active
// subscription. These cases check the lock that makes skipping it safe under concurrency.
let db: TestDatabase;
const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'silent' });

before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(() => db.drop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dispatchJobs = async (eventId: string): Promise<number> =>
  (
    await db.pool.query(
      `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
     where k.identifier = 'dispatch-event' and j.payload->>'eventId' = $1`,
      [eventId],
    )
  ).rows[0].n;
const clearWebhooks = () => db.pool.query('delete from webhooks');

/** Whether `p` is still pending after `ms`. */
async function stillPending(p: Promise<unknown>, ms = 300): Promise<boolean> {
  const marker = Symbol('pending');
  return (await Promise.race([p.then(() => undefined), sleep(ms).then(() => marker)])) === marker;
}

describe('the fan-out job of a booking event', () => {
  it('is queued only while an active subscription of the organization and mode wants the event', async () => {
    await clearWebhooks();
    const none = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    assert.equal(await dispatchJobs(none.eventId), 0, 'no subscription: no job');
    assert.equal(
      (await db.pool.query('select 1 from booking_events where id = $1', [none.eventId])).rowCount,
      1,
      'the event is kept all the same',
    );

    const hook = await createWebhook(
      db.pool,
      { organizationId: 'org_northwind', mode: 'live' },
      { url: 'https://127.0.0.1/live', events: ['BOOKING_CREATED'] },
      config,
      new Date(),
    );
    const otherMode = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    assert.equal(await dispatchJobs(otherMode.eventId), 0, 'a live subscription does not make a test event dispatch');

    const testHook = await createWebhook(
      db.pool,
      { organizationId: 'org_northwind', mode: 'test' },
      { url: 'https://127.0.0.1/test', events: ['BOOKING_CANCELLED'] },
      config,
      new Date(),
    );
    const unlisted = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    assert.equal(await dispatchJobs(unlisted.eventId), 0, 'a subscription that does not list the event does not want it');
    const listed = await recordBookingEvent(db.pool, 'BOOKING_CANCELLED');
    assert.equal(await dispatchJobs(listed.eventId), 1, 'a subscription that lists it');
    const broadcast = await recordBookingEvent(db.pool, 'BOOKING_UPDATED');
    assert.equal(await dispatchJobs(broadcast.eventId), 1, 'BOOKING_UPDATED goes to every active subscription');

    await updateWebhook(db.pool, { organizationId: 'org_northwind', mode: 'test' }, testHook.id, { is_active: false }, config, new Date());
    const inactive = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    assert.equal(await dispatchJobs(inactive.eventId), 0, 'an inactive subscription does not count');
    assert.ok(hook.id);
  });

  /**
   * While a transaction holds the shared lock of `scopes` (as recording events does), creating a
   * subscription of org_northwind/test waits, and goes through once it commits.
   */
  async function createWaitsForEvents(scopes: Parameters<typeof lockSubscriptions>[1]): Promise<void> {
    await clearWebhooks();
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await lockSubscriptions(client, scopes, 'shared');
      const create = createWebhook(
        db.pool,
        { organizationId: 'org_northwind', mode: 'test' },
        { url: 'https://127.0.0.1/a', events: ['BOOKING_CREATED'] },
        config,
        new Date(),
      );
      assert.ok(await stillPending(create), 'the create waits for the event transaction');
      await client.query('commit');
      await create;
    } finally {
      client.release();
    }
  }

  it('a subscription created while an event is being recorded waits until that event has committed', async () => {
    await createWaitsForEvents({ organizationId: 'org_northwind', mode: 'test' });
  });

  it('a batch of events of several organizations takes the same lock as a single one', async () => {
    // lock_subscriptions takes one key directly and several in sorted order: both must name it alike
    await createWaitsForEvents([
      { organizationId: 'org_other', mode: 'live' },
      { organizationId: 'org_northwind', mode: 'test' },
    ]);
  });

  it('an event recorded while a subscription is being created or activated waits, then sees it', async () => {
    await clearWebhooks();
    const scope = { organizationId: 'org_northwind', mode: 'test' as const };
    // a subscription whose transaction is still open
    let recording: ReturnType<typeof recordBookingEvent> | undefined;
    await transaction(db.pool, async (tx) => {
      await lockSubscriptions(tx, scope, 'exclusive');
      await insertWebhook(tx, {
        id: 'wh_order_test',
        organization_id: 'org_northwind',
        mode: 'test',
        url: 'https://127.0.0.1/b',
        events: ['BOOKING_CREATED'],
        description: null,
        secret_encrypted: 'x',
        created_at: new Date(),
      });
      recording = recordBookingEvent(db.pool, 'BOOKING_CREATED');
      assert.ok(await stillPending(recording), 'the event waits for the subscription transaction');
    });
    const { eventId } = await recording!;
    assert.equal(await dispatchJobs(eventId), 1, 'the event committed after the subscription, so it is fanned out');

    // re-activation takes the same lock
    await updateWebhook(db.pool, scope, 'wh_order_test', { is_active: false }, config, new Date());
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await lockSubscriptions(client, scope, 'shared');
      const activate = updateWebhook(db.pool, scope, 'wh_order_test', { is_active: true }, config, new Date());
      assert.ok(await stillPending(activate), 'activation waits for the event transaction');
      await client.query('commit');
      await activate;
      // so does a change of the events it wants
      await client.query('begin');
      await lockSubscriptions(client, scope, 'shared');
      const relist = updateWebhook(db.pool, scope, 'wh_order_test', { events: ['BOOKING_CANCELLED'] }, config, new Date());
      assert.ok(await stillPending(relist), 'a new events list waits for the event transaction');
      await client.query('commit');
      await relist;
    } finally {
      client.release();
    }
  });
});
