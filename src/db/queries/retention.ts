import type { Db, Pool } from '../pool.ts';
import { trySessionLock } from '../session-lock.ts';

/**
 * One table that only grows, and which of its rows may go: those whose `age` column is older
 * than the cutoff and that `done` says are no longer needed. A table joins retention by a row
 * in retentionTargets (src/jobs/tasks/enforce-retention.ts); docs/operations.md, Retention lists them.
 */
export interface RetentionTarget {
  /** The table, and its name in logs. */
  table: string;
  /** A timestamptz column with a btree index (migrations 074, 075), read oldest first. */
  age: string;
  /** How long a row is kept after `age`, in seconds. */
  keepSeconds: number;
  /** SQL condition on the row (no alias): true when nothing still needs it. */
  done: string;
}

/**
 * Deletes at most `limit` rows of the target, oldest first, in one statement (its own short
 * transaction when `db` is the pool); returns how many went. The inner select is an index range
 * scan from the oldest row with a LIMIT, and the delete finds its rows by their physical address
 * (a TID scan), so a batch costs the same however large the table is, and holds row locks only
 * on the rows it deletes. A row changed concurrently is skipped (its new version has another
 * address), never deleted on a stale reading.
 */
export async function deleteOldest(db: Db, target: RetentionTarget, limit: number): Promise<number> {
  const { table, age, done } = target;
  // Sent unnamed: the cutoff moves with now(), and each batch is planned for the table as it is.
  const result = await db.query(
    `delete from ${table} where ctid = any(array(
       select ctid from ${table}
        where ${age} < now() - make_interval(secs => $1) and (${done})
        order by ${age}
        limit $2))`,
    [target.keepSeconds, limit],
  );
  return result.rowCount ?? 0;
}

/** The session advisory lock a retention run holds ("retn"; migrations hold "book"). */
export const RETENTION_LOCK = 0x7265746e;

/**
 * Runs `fn` while a connection of the pool holds RETENTION_LOCK, so that two retention runs
 * never work at once (the crontab spaces its runs, but a run enqueued by hand can meet one).
 * Answers undefined, running nothing, when another session holds the lock. The connection only
 * holds the lock; `fn` does its work on the pool.
 */
export function underRetentionLock<T>(pool: Pool, fn: () => Promise<T>): Promise<T | undefined> {
  return trySessionLock(pool, RETENTION_LOCK, fn);
}
