import type { Db } from '../../db/pool.ts';
import type { SuccessRecord } from '../../db/queries/webhook-deliveries.ts';
import { recordSuccesses } from '../../db/queries/webhook-deliveries.ts';

/** At most this many records per statement. */
const MAX_BATCH = 200;

interface Waiting {
  record: SuccessRecord;
  resolve: (owned: boolean) => void;
  reject: (err: unknown) => void;
}

interface Batcher {
  queue: Waiting[];
  flushing: boolean;
}

const batchers = new WeakMap<Db, Batcher>();

/**
 * Records a successful attempt; resolves once it is committed (so a job completes only after
 * its record is written, as before). Successes arriving while one statement is in flight wait
 * and go together in the next: under load one round trip records many attempts, at rest each
 * goes alone at once. A failed statement rejects every attempt in it, whose jobs then fail and
 * are retried (at-least-once, as for any error after the send).
 */
export function recordSuccess(db: Db, record: SuccessRecord): Promise<boolean> {
  let b = batchers.get(db);
  if (!b) batchers.set(db, (b = { queue: [], flushing: false }));
  const batcher = b;
  return new Promise<boolean>((resolve, reject) => {
    batcher.queue.push({ record, resolve, reject });
    if (!batcher.flushing) void flush(db, batcher);
  });
}

async function flush(db: Db, b: Batcher): Promise<void> {
  b.flushing = true;
  try {
    while (b.queue.length > 0) {
      const batch = b.queue.splice(0, MAX_BATCH);
      try {
        const owned = await recordSuccesses(db, batch.map((w) => w.record));
        batch.forEach((w, i) => w.resolve(owned[i] ?? false));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  } finally {
    b.flushing = false;
  }
}
