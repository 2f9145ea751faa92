import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { transaction } from '../../src/db/pool.ts';
import type { RetentionTarget } from '../../src/db/queries/retention.ts';
import { deleteOldest, RETENTION_LOCK } from '../../src/db/queries/retention.ts';
import { enqueue } from '../../src/db/jobs.ts';
import { enforceRetention, retentionTargets } from '../../src/jobs/tasks/enforce-retention.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';

// Retention (docs/operations.md, Retention): old rows of the tables that only grow go, in bounded batches;
// recent rows and rows something still needs stay.
let t: TestApp;
/** The worker's log lines, as an operator reads them. */
const logged: { msg: string }[] = [];
before(async () => {
  t = await startApp({ worker: true, log: pino({ level: 'info' }, { write: (s: string) => void logged.push(JSON.parse(s)) }) });
});
after(async () => t?.close());

const q = (sql: string, params: unknown[] = []) => t.db.pool.query(sql, params);
const ids = async (sql: string) => (await q(sql)).rows.map((r) => r.id as string).sort();
const config = loadConfig({});
const run = () => enforceRetention(t.db.pool, retentionTargets(config), { batchSize: 1000, budgetMs: 60_000, restRatio: 0 });

async function until(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeEach(async () => {
  await q('truncate booking_events, webhook_messages, webhook_deliveries, email_outbox, idempotency_keys, calendar_busy');
  await q(`delete from webhooks where id = 'wh_ret'`);
  await q(`insert into webhooks (id, organization_id, mode, url, events, secret_encrypted)
           values ('wh_ret', 'org_northwind', 'test', 'https://receiver.example/hook', '{BOOKING_CREATED}', 'x')`);
});

async function event(id: string, daysAgo: number): Promise<void> {
  await q(
    `insert into booking_events (id, organization_id, mode, booking_id, type, payload, created_at)
           values ($1, 'org_northwind', 'test', null, 'BOOKING_CREATED', '{}', now() - $2::float8 * interval '1 day')`,
    [id, daysAgo],
  );
}

async function message(id: string, status: string, daysAgo: number, attempts: number): Promise<void> {
  await q(
    `insert into webhook_messages (id, webhook_id, event_id, event_type, body, status, created_at)
           values ($1, 'wh_ret', 'evt_' || $1, 'BOOKING_CREATED', '{}', $2, now() - make_interval(days => $3))`,
    [id, status, daysAgo],
  );
  for (let a = 1; a <= attempts; a++) {
    const last = a === attempts;
    await q(
      `insert into webhook_deliveries (id, message_id, webhook_id, event_id, event_type, attempt, status, created_at)
             values ($1 || '_' || $2::int, $1, 'wh_ret', 'evt_' || $1, 'BOOKING_CREATED', $2::int, $3, now() - make_interval(days => $4))`,
      [id, a, last && status !== 'failed' ? status : 'failed', daysAgo],
    );
  }
}

async function email(id: string, status: string, daysAgo: number): Promise<void> {
  await q(
    `insert into email_outbox (id, organization_id, mode, kind, recipient_role, to_address, subject, text_body, status, created_at)
           values ($1, 'org_northwind', 'test', 'scheduled', 'attendee', 'a@example.com', 's', 'b', $2, now() - make_interval(days => $3))`,
    [id, status, daysAgo],
  );
}

describe('what goes and what stays (default retention: 30 days, idempotency 24 h)', () => {
  it('booking events: older than 30 days go, unless their webhook fan-out is still queued', async () => {
    await event('evt_old', 31);
    await event('evt_old_undispatched', 31);
    await event('evt_recent', 29);
    // a fan-out job waiting for its retry (run_at in the future, so the worker leaves it queued)
    await transaction(t.db.pool, (tx) =>
      enqueue(tx, 'dispatch-event', { eventId: 'evt_old_undispatched' }, { runAt: new Date(Date.now() + 3_600_000) }),
    );
    const result = await run();
    assert.equal(result.deleted.booking_events, 1);
    assert.deepEqual(await ids('select id from booking_events'), ['evt_old_undispatched', 'evt_recent']);
  });

  it('webhook messages: settled ones older than 30 days go with their delivery history; pending ones stay', async () => {
    await message('msg_old_ok', 'succeeded', 31, 2);
    await message('msg_old_failed', 'failed', 40, 5);
    await message('msg_old_pending', 'pending', 31, 2);
    await message('msg_recent', 'succeeded', 29, 1);
    const result = await run();
    assert.equal(result.deleted.webhook_messages, 2);
    assert.deepEqual(await ids('select id from webhook_messages'), ['msg_old_pending', 'msg_recent']);
    assert.deepEqual(await ids('select id from webhook_deliveries'), ['msg_old_pending_1', 'msg_old_pending_2', 'msg_recent_1']);
  });

  it('the delivery history the API lists keeps the last 30 days', async () => {
    await message('msg_old_ok', 'succeeded', 31, 1);
    await message('msg_recent', 'succeeded', 29, 1);
    await run();
    const res = await t.request('GET', '/v1/webhooks/wh_ret/deliveries', { key: KEYS.secret });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.deliveries.map((d: { id: string }) => d.id),
      ['msg_recent_1'],
    );
  });

  it('emails: sent, logged and failed ones older than 30 days go; one not sent yet stays', async () => {
    await email('em_sent', 'sent', 31);
    await email('em_logged', 'logged', 31);
    await email('em_failed', 'failed', 31);
    await email('em_pending', 'pending', 60);
    await email('em_recent', 'sent', 29);
    const result = await run();
    assert.equal(result.deleted.email_outbox, 3);
    assert.deepEqual(await ids('select id from email_outbox'), ['em_pending', 'em_recent']);
  });

  it('Idempotency-Key records: older than 24 hours go, younger ones stay whatever their state', async () => {
    await q(`insert into idempotency_keys (organization_id, mode, key, request_hash, state, locked_until, created_at)
             values ('org_northwind', 'test', 'old', 'h', 'done', null, now() - interval '25 hours'),
                    ('org_northwind', 'test', 'fresh', 'h', 'done', null, now() - interval '23 hours'),
                    ('org_northwind', 'test', 'running', 'h', 'running', now() + interval '1 minute', now() - interval '23 hours')`);
    const result = await run();
    assert.equal(result.deleted.idempotency_keys, 1);
    assert.deepEqual(
      (await q('select key from idempotency_keys order by key')).rows.map((r) => r.key),
      ['fresh', 'running'],
    );
  });

  it('calendar busy blocks: those that ended over two days ago go (before the sync window), the rest stay', async () => {
    const member = (await q('select id from members where is_active limit 1')).rows[0].id as string;
    await q(
      `insert into calendars (id, organization_id, user_id, team_id, provider, calendar_id, sync_status)
             select 'cal_ret', m.organization_id, m.id, m.team_id, 'CALDAV', 'cal_ret', 'ERROR' from members m where m.id = $1
             on conflict (id) do nothing`,
      [member],
    );
    await q(`insert into calendar_connections (calendar_id, url, username, password_encrypted, password_digest)
             values ('cal_ret', 'https://dav.example/', 'u', 'x', 'x') on conflict do nothing`);
    await q(`insert into calendar_resources (calendar_id, href, data, events, skipped) values ('cal_ret', 'a.ics', '', 3, 0)
             on conflict do nothing`);
    for (const [daysAgo, hours] of [
      [3, 1],
      [2.1, 1],
      [1.5, 1],
      [-1, 1],
    ]) {
      await q(
        `insert into calendar_busy (calendar_id, href, member_id, start_time, end_time)
               values ('cal_ret', 'a.ics', $1, now() - $2::float8 * interval '1 day', now() - $2::float8 * interval '1 day' + $3::int * interval '1 hour')`,
        [member, daysAgo, hours],
      );
    }
    const result = await run();
    assert.equal(result.deleted.calendar_busy, 2);
    assert.equal((await q('select count(*)::int as n from calendar_busy')).rows[0].n, 2);
  });

  it('the retention of each table follows its variable', async () => {
    await event('evt_8d', 8);
    await message('msg_8d', 'succeeded', 8, 1);
    await email('em_8d', 'sent', 8);
    const shorter = loadConfig({ RETENTION_DAYS_EVENTS: '7', RETENTION_DAYS_WEBHOOK_DELIVERIES: '9', RETENTION_DAYS_EMAILS: '7' });
    const result = await enforceRetention(t.db.pool, retentionTargets(shorter), { batchSize: 1000, budgetMs: 60_000, restRatio: 0 });
    assert.deepEqual(result.deleted, { booking_events: 1, webhook_messages: 0, email_outbox: 1, idempotency_keys: 0, calendar_busy: 0 });
    assert.deepEqual(await ids('select id from webhook_messages'), ['msg_8d']);
  });
});

describe('batches', () => {
  // 2 days old under a 1-day retention: the worker's own run (30 days) leaves these rows alone
  const target: RetentionTarget = { table: 'booking_events', age: 'created_at', keepSeconds: 86_400, done: 'true' };
  const left = async () => (await q('select count(*)::int as n from booking_events')).rows[0].n as number;

  it('one batch deletes at most its size, oldest first', async () => {
    for (let i = 0; i < 25; i++) await event(`evt_${String(i).padStart(2, '0')}`, 2 + i / 100);
    assert.equal(await deleteOldest(t.db.pool, target, 10), 10);
    assert.equal(await left(), 15);
    // the oldest went: 2.24 .. 2.15 days old
    assert.deepEqual((await ids('select id from booking_events')).slice(-1), ['evt_14']);
  });

  it('a run repeats batches until a short one, and stops starting batches when its time is up', async () => {
    for (let i = 0; i < 25; i++) await event(`evt_${i}`, 2);
    await event('evt_today', 0);
    const stopped = await enforceRetention(t.db.pool, [target], { batchSize: 10, budgetMs: 0, restRatio: 0 });
    assert.deepEqual(stopped, { deleted: { booking_events: 0 }, batches: 0, complete: false });
    const result = await enforceRetention(t.db.pool, [target], { batchSize: 10, budgetMs: 60_000, restRatio: 0 });
    assert.deepEqual(result, { deleted: { booking_events: 25 }, batches: 3, complete: true });
    assert.deepEqual(await ids('select id from booking_events'), ['evt_today']);
  });

  it('a run rests after each full batch, as long as the batch took times the ratio, and not after the last', async () => {
    for (let i = 0; i < 25; i++) await event(`evt_${i}`, 2);
    // every batch takes at least SLOW_MS: its delete statement sleeps that long
    const SLOW_MS = 40;
    await q(`create function test_slow_delete() returns trigger language plpgsql as $$
             begin perform pg_sleep(${SLOW_MS / 1000}); return null; end $$`);
    await q('create trigger test_slow_delete after delete on booking_events for each statement execute function test_slow_delete()');
    const rests: number[] = [];
    const started = performance.now();
    const result = await enforceRetention(t.db.pool, [target], {
      batchSize: 10,
      budgetMs: 60_000,
      restRatio: 2,
      sleep: async (ms) => void rests.push(ms),
    }).finally(() => q('drop function test_slow_delete() cascade'));
    const elapsed = performance.now() - started; // the batches' time, the recorded rests taking none
    assert.deepEqual(result, { deleted: { booking_events: 25 }, batches: 3, complete: true });
    // two full batches (10, 10), then a short one (5) that ends the table
    assert.equal(rests.length, 2);
    for (const ms of rests) assert.ok(ms >= 2 * SLOW_MS, `a rest of ${ms} ms after a batch of at least ${SLOW_MS} ms`);
    // each rest is twice its own batch's time, so together at most twice the run's
    assert.ok(rests[0] + rests[1] <= 2 * elapsed, `rests ${rests.join(', ')} ms in a run of ${elapsed} ms`);
  });

  it('the rests count against the time budget', async () => {
    for (let i = 0; i < 25; i++) await event(`evt_${i}`, 2);
    const result = await enforceRetention(t.db.pool, [target], {
      batchSize: 10,
      budgetMs: 50,
      restRatio: 1,
      sleep: () => new Promise((r) => setTimeout(r, 100)),
    });
    assert.deepEqual(result, { deleted: { booking_events: 10 }, batches: 1, complete: false });
  });
});

describe('the job', () => {
  it("is on the worker's crontab, and a run enqueued on the queue enforces the retention", async () => {
    await until(
      async () => (await q(`select 1 from graphile_worker._private_known_crontabs where identifier = 'enforce-retention'`)).rowCount === 1,
      'crontab registered',
    );
    await email('em_old', 'sent', 31);
    await email('em_new', 'sent', 1);
    await transaction(t.db.pool, (tx) => enqueue(tx, 'enforce-retention', {}));
    await until(async () => (await q(`select 1 from email_outbox where id = 'em_old'`)).rowCount === 0, 'old email deleted');
    assert.deepEqual(await ids('select id from email_outbox'), ['em_new']);
  });

  it('a run that meets another one under way does nothing, and the next run works again', async () => {
    await email('em_old', 'sent', 31);
    const jobsLeft = async () =>
      (await q(`select count(*)::int n from graphile_worker.jobs where task_identifier = 'enforce-retention'`)).rows[0].n === 0;
    const saysSo = () => logged.filter((l) => l.msg === 'retention: another run is under way; this one does nothing').length;
    const skipped = saysSo();
    // another run under way: its session holds the lock (and lets go even when an assertion fails)
    const other = await t.db.pool.connect();
    try {
      await other.query('select pg_advisory_lock($1)', [RETENTION_LOCK]);
      await transaction(t.db.pool, (tx) => enqueue(tx, 'enforce-retention', {}));
      await until(jobsLeft, 'the run while the lock is held finished');
      assert.deepEqual(await ids('select id from email_outbox'), ['em_old']);
      // at least once: the crontab's own run may meet the lock too
      assert.ok(saysSo() > skipped, 'the run says why it did nothing');
    } finally {
      await other.query('select pg_advisory_unlock($1)', [RETENTION_LOCK]);
      other.release();
    }
    const skippedWhileHeld = saysSo();
    await transaction(t.db.pool, (tx) => enqueue(tx, 'enforce-retention', {}));
    await until(jobsLeft, 'the run after the lock was released finished');
    assert.deepEqual(await ids('select id from email_outbox'), []);
    assert.equal(saysSo(), skippedWhileHeld, 'the run that worked did not say it was skipped');
    // and the run let go of the lock: another session takes it at once
    const next = await t.db.pool.connect();
    try {
      assert.equal((await next.query('select pg_try_advisory_lock($1) as got', [RETENTION_LOCK])).rows[0].got, true);
      await next.query('select pg_advisory_unlock($1)', [RETENTION_LOCK]);
    } finally {
      next.release();
    }
  });

  it('a job enqueued in a transaction that rolls back never exists', async () => {
    const client = await t.db.pool.connect();
    try {
      await client.query('begin');
      await enqueue(client, 'enforce-retention', {}, { jobKey: 'rolled-back' });
      await client.query('rollback');
    } finally {
      client.release();
    }
    const jobs = await q(`select count(*)::int n from graphile_worker._private_jobs where key = 'rolled-back'`);
    assert.equal(jobs.rows[0].n, 0);
  });
});

describe('configuration', () => {
  it('defaults to 30 days and batches of 1,000; a bad value is a clear error', () => {
    assert.deepEqual(loadConfig({}).retention, { eventsDays: 30, webhookDeliveriesDays: 30, emailsDays: 30, batchSize: 1000 });
    assert.throws(
      () => loadConfig({ RETENTION_DAYS_EVENTS: '0', RETENTION_BATCH_SIZE: 'lots' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        /RETENTION_DAYS_EVENTS: must be between 1 and 36500/.test(err.message) &&
        /RETENTION_BATCH_SIZE: expected a whole number/.test(err.message),
    );
  });
});
