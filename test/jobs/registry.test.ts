import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { MemoryFreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import { TASKS, payloadProblems } from '../../src/jobs/registry.ts';
import { buildTaskList } from '../../src/jobs/task-list.ts';
import type { JobWorker } from '../../src/jobs/worker.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';

let t: TestApp;
let worker: JobWorker;
const lines: Record<string, unknown>[] = [];

before(async () => {
  t = await startApp();
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)));
      cb();
    },
  });
  const deps = {
    db: t.db.pool,
    config: t.config,
    now: () => new Date(),
    log: pino({ level: 'info' }, stream),
    freebusyCache: new MemoryFreeBusyCache(),
  };
  worker = await startWorker(deps);
});
after(async () => {
  await worker?.stop();
  await t?.close();
});

interface JobRow {
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  locked_at: Date | null;
  payload: unknown;
}

async function jobOf(key: string): Promise<JobRow | undefined> {
  const { rows } = await t.db.pool.query<JobRow>(
    'select attempts, max_attempts, last_error, locked_at, payload from graphile_worker._private_jobs where key = $1',
    [key],
  );
  return rows[0];
}

async function settled(key: string): Promise<JobRow> {
  for (let i = 0; i < 200; i++) {
    const job = await jobOf(key);
    if (job?.last_error && job.locked_at === null) return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${key} did not fail in time`);
}

describe('job registry', () => {
  it('every registered task has a task in the worker, and no other', () => {
    const deps = {
      db: t.db.pool,
      config: t.config,
      now: () => new Date(),
      log: pino({ level: 'silent' }),
      freebusyCache: new MemoryFreeBusyCache(),
    };
    assert.deepEqual(Object.keys(buildTaskList(deps)).sort(), Object.keys(TASKS).sort());
  });

  it('decodes the payloads producers make, and cron payloads (graphile-worker adds _cron)', () => {
    assert.deepEqual(payloadProblems('route-booking', { bookingId: 'bkg_1' }), []);
    assert.deepEqual(payloadProblems('send-email', { emailIds: ['eml_1', 'eml_2'] }), []);
    assert.deepEqual(payloadProblems('send-email', { emailId: 'eml_1' }), [], 'the one-row payload of earlier versions');
    assert.deepEqual(payloadProblems('deliver-webhook', { messageId: 'msg_1', position: 3 }), []);
    assert.deepEqual(payloadProblems('enforce-retention', { _cron: { ts: '2026-11-25T07:00:00Z', backfilled: false } }), []);
  });

  it('names what is wrong with a malformed payload', () => {
    assert.match(payloadProblems('route-booking', {}).join(), /bookingId/);
    assert.match(payloadProblems('deliver-webhook', { messageId: 'msg_1', position: '2' }).join(), /\/position/);
    assert.notDeepEqual(payloadProblems('deliver-webhook', { messageId: 'msg_1', position: 0 }), []);
    assert.notDeepEqual(payloadProblems('send-email', { emailIds: [] }), []);
    assert.notDeepEqual(payloadProblems('dispatch-event', null), []);
  });

  const malformed: [string, string, string][] = [
    ['route-booking', 'bad-route', `{"booking_id": "bkg_x"}`],
    ['deliver-webhook', 'bad-deliver', `{"messageId": "msg_x", "position": "1"}`],
    ['send-email', 'bad-email', `{"emailIds": []}`],
    ['dispatch-event', 'bad-dispatch', `"evt_x"`],
  ];
  for (const [task, key, payload] of malformed) {
    it(`a malformed ${task} job added by SQL fails for good, logged, with its payload kept`, async () => {
      await t.db.pool.query('select graphile_worker.add_job($1, $2::json, job_key => $3)', [task, payload, key]);
      const job = await settled(key);
      assert.match(job.last_error!, new RegExp(`malformed ${task} payload, not retried`));
      assert.equal(job.attempts, job.max_attempts, 'no attempt left: graphile-worker never fetches it again');
      assert.deepEqual(job.payload, JSON.parse(payload));
      const logged = lines.find((l) => l.task === task && String(l.msg).startsWith(`malformed ${task} payload`));
      assert.ok(logged, 'an error line names the task');
      assert.equal(logged.level, 50);
      assert.deepEqual(logged.payload, JSON.parse(payload));
      assert.ok(Array.isArray(logged.problems) && logged.problems.length > 0);
      // still there, untouched, a poll later
      await new Promise((r) => setTimeout(r, 1200));
      assert.deepEqual(await jobOf(key), job);
    });
  }

  it('a well-formed job next to them still runs', async () => {
    await t.db.pool.query(
      `insert into idempotency_keys (organization_id, mode, key, request_hash, state, created_at)
       values ('org_northwind', 'test', 'old', 'h', 'done', now() - interval '25 hours')`,
    );
    await t.db.pool.query(`select graphile_worker.add_job('enforce-retention', '{}'::json, job_key => 'good')`);
    for (let i = 0; i < 200 && (await jobOf('good')); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await jobOf('good'), undefined, 'completed');
    assert.equal((await t.db.pool.query(`select 1 from idempotency_keys where key = 'old'`)).rowCount, 0);
  });
});
