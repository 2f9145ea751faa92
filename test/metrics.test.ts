import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { createPool } from '../src/db/pool.ts';
import { exposition, observeQueue } from '../src/metrics.ts';

// A scrape while the database is away still answers: the queue's depth, which needs the
// database, is NaN (unknown), and everything else (the process, the pools) is there.
const unreachable = createPool('postgres://postgres@127.0.0.1:1/none', 1);
after(() => unreachable.end());

it('answers a scrape when the database cannot be reached: job_queue_depth NaN, the rest as ever', async () => {
  observeQueue(unreachable);
  const { body } = await exposition();
  assert.match(body, /^job_queue_depth nan$/im); // prom-client writes "Nan", which Prometheus reads as NaN
  assert.match(body, /^process_resident_memory_bytes \d/m);
});
