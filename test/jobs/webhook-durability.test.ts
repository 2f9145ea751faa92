import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import { INTERRUPTED_ERROR } from '../../src/domain/webhooks/deliver.ts';
import { createWebhook } from '../../src/domain/webhooks/manage.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { testSeed } from '../helpers/fixtures.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { recordBookingEvent, until, verifyDelivery } from '../helpers/webhook-events.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/booking-service.js');

let db: TestDatabase;
let rx: HttpsReceiver;
const workers: ChildProcess[] = [];

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: db.url,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: rx.caFile,
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  workers.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
  rx = await startHttpsReceiver();
});
after(async () => {
  for (const w of workers) {
    if (w.exitCode === null && w.signalCode === null) {
      w.kill('SIGTERM');
      await exited(w);
    }
  }
  await rx.close();
  await db.drop();
});

describe('a worker killed in the middle of a delivery', () => {
  it('the event still arrives after a restart, and the history says what happened', { timeout: 90_000 }, async () => {
    const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'silent' });
    const hook = await createWebhook(
      db.pool,
      { organizationId: 'org_northwind', mode: 'test' },
      { url: `${rx.origin}/durable`, events: ['BOOKING_CREATED'] },
      config,
      new Date(),
    );
    // the first request is held open: the worker dies while it waits for the answer
    rx.reply = () => (rx.received.length === 1 ? { status: 200, hangMs: 60_000 } : { status: 200 });

    const first = startWorkerProcess();
    const { booking } = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    const [held] = await rx.waitFor(1, { path: '/durable', timeoutMs: 20_000 });
    first.kill('SIGKILL');
    await exited(first);
    const during = await db.pool.query('select attempt, status from webhook_deliveries where webhook_id = $1', [hook.id]);
    assert.deepEqual(during.rows, [{ attempt: 1, status: 'pending' }], 'the attempt in flight is on record');

    // an event committed while no worker runs waits in the queue
    const second = await recordBookingEvent(db.pool, 'BOOKING_CREATED');
    const killedAt = Date.now();
    startWorkerProcess();
    const got = await rx.waitFor(3, { path: '/durable', timeoutMs: 45_000 });
    const elapsed = Date.now() - killedAt;

    const redelivered = got.slice(1).find((r) => r.headers['webhook-id'] === held!.headers['webhook-id']);
    assert.ok(redelivered, 'the interrupted event was delivered again with the same webhook-id');
    assert.equal(verifyDelivery(hook.secret, redelivered).data.id, booking.id);
    const other = got.slice(1).find((r) => r !== redelivered)!;
    assert.equal(verifyDelivery(hook.secret, other).data.id, second.booking.id);
    assert.ok(elapsed < 40_000, `recovered in ${elapsed} ms`);

    const records = await until(
      async () => {
        const r = await db.pool.query(
          `select m.id as message, d.attempt, d.status, d.error from webhook_deliveries d join webhook_messages m on m.id = d.message_id
         where d.webhook_id = $1 order by m.created_at, d.attempt`,
          [hook.id],
        );
        return r.rows.every((x) => x.status !== 'pending') && r.rows.length === 3 && r.rows;
      },
      5000,
      'the records settled',
    );
    const forHeld = records.filter((r) => r.message === held!.headers['webhook-id']);
    assert.deepEqual(
      forHeld.map((r) => [r.attempt, r.status]),
      [
        [1, 'failed'],
        [2, 'succeeded'],
      ],
    );
    assert.equal(forHeld[0].error, INTERRUPTED_ERROR);
    const messages = await db.pool.query('select status from webhook_messages where webhook_id = $1', [hook.id]);
    assert.deepEqual(
      messages.rows.map((m) => m.status),
      ['succeeded', 'succeeded'],
    );
  });
});
