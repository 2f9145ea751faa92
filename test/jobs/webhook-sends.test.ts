import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { MemoryFreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import { createWebhook } from '../../src/domain/webhooks/manage.ts';
import type { JobWorker } from '../../src/jobs/worker.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { testSeed } from '../helpers/fixtures.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { recordBookingEvent, until } from '../helpers/webhook-events.ts';

// A webhook send does not hold its job's slot (src/domain/webhooks/sends.ts): the job starts it and
// ends. These check the two limits that come with it: at most WEBHOOK_MAX_SENDS in flight per
// process, and a stopping worker that waits for its sends and records their outcomes.

let db: TestDatabase;
let rx: HttpsReceiver;
let worker: JobWorker | undefined;
const config = () =>
  loadConfig({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_CA_FILE: rx.caFile,
    LOG_LEVEL: 'silent',
    WORKER_CONCURRENCY: '8',
    WEBHOOK_MAX_SENDS: '2',
  });
const start = () =>
  startWorker({
    db: db.pool,
    config: config(),
    now: () => new Date(),
    log: pino({ level: 'silent' }),
    freebusyCache: new MemoryFreeBusyCache(),
  });

before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
  rx = await startHttpsReceiver();
  await createWebhook(
    db.pool,
    { organizationId: 'org_northwind', mode: 'test' },
    { url: `${rx.origin}/sends`, events: ['BOOKING_CREATED'] },
    config(),
    new Date(),
  );
});
after(async () => {
  await worker?.stop();
  await rx.close();
  await db.drop();
});

const statuses = async () => (await db.pool.query(`select status from webhook_deliveries order by created_at`)).rows.map((r) => r.status);

describe('webhook sends of one worker process', () => {
  it('are at most WEBHOOK_MAX_SENDS at once, though the worker has slots to spare', async () => {
    let open = 0;
    let most = 0;
    rx.reply = () => {
      most = Math.max(most, ++open);
      setTimeout(() => open--, 600);
      return { status: 200, hangMs: 600 };
    };
    worker = await start();
    for (let i = 0; i < 6; i++) await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    await rx.waitFor(6, { path: '/sends', timeoutMs: 15_000 });
    await until(async () => (await statuses()).every((s) => s === 'succeeded'), 10_000, 'every attempt recorded');
    assert.equal(most, 2, 'two in flight, never more');
  });

  it('a stopping worker waits for the sends it started and records their outcome', async () => {
    rx.reply = () => ({ status: 200, hangMs: 1500 });
    const before = rx.on('/sends').length;
    await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    await rx.waitFor(before + 1, { path: '/sends', timeoutMs: 10_000 });
    const stopping = Date.now();
    await worker!.stop();
    worker = undefined;
    assert.ok(Date.now() - stopping >= 1000, 'the stop waited for the answer');
    assert.equal((await statuses()).at(-1), 'succeeded', 'recorded before the stop ended, not left to the sweeper');
  });
});
