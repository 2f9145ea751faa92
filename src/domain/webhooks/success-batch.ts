import type { Db } from '../../db/pool.ts';
import type { SuccessRecord } from '../../db/queries/webhook-deliveries.ts';
import { recordSuccesses } from '../../db/queries/webhook-deliveries.ts';
import { coalesce } from '../../lib/coalesce.ts';

/** At most this many records per statement. */
const MAX_BATCH = 200;

const batchers = new WeakMap<Db, (record: SuccessRecord) => Promise<boolean>>();

/**
 * Records a successful attempt; resolves once it is committed (so a job completes only after
 * its record is written). Successes arriving while one statement is in flight wait and go
 * together in the next (coalesce): under load one round trip records many attempts, at rest
 * each goes alone at once. When a statement fails, its records are tried again one by one, and
 * the jobs whose record still fails are retried by the queue (at-least-once, as for any error
 * after the send).
 */
export function recordSuccess(db: Db, record: SuccessRecord): Promise<boolean> {
  let call = batchers.get(db);
  if (!call) {
    call = coalesce(async (records: SuccessRecord[]) => {
      const owned = await recordSuccesses(db, records);
      return new Map(records.map((r, i) => [r, owned[i] ?? false]));
    }, MAX_BATCH);
    batchers.set(db, call);
  }
  return call(record);
}
