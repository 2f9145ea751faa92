import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import pino from 'pino';
import { queueLogger } from '../../src/jobs/worker.ts';

/** graphile-worker's log lines as our logger writes them: errors are errors, except while stopping. */
function capture() {
  const lines: { level: number; msg: string; during?: string; queue?: string }[] = [];
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  return { log, lines };
}

it("keeps graphile-worker's errors errors while running, and makes them warnings marked during stop while stopping", async () => {
  let stopping = false;
  const { log, lines } = capture();
  const logger = queueLogger({ log }, () => stopping);
  const scoped = logger.scope({ label: 'worker' });
  scoped.error('Failed to release job');
  scoped.warn('a warning');
  scoped.info('started');
  stopping = true;
  scoped.error('Error occurred during forceful shutdown');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.during ?? null]),
    [
      [50, 'Failed to release job', null],
      [40, 'a warning', null],
      [20, 'started', null],
      [40, 'Error occurred during forceful shutdown', 'stop'],
    ],
  );
});
