import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Pool } from '../db/pool.ts';
import { beat, forget, unlockDeadPools } from '../db/queries/worker-heartbeats.ts';

export const HEARTBEAT_SECONDS = 10;
/**
 * Six missed beats: the process is gone. A live process beats while it waits on I/O; only an
 * event loop blocked this long (a bug in itself) would look dead, and its jobs then run twice.
 */
export const DEAD_AFTER_SECONDS = 6 * HEARTBEAT_SECONDS;
/** A pool with no heartbeat row (a process of a release before heartbeats) is presumed alive this long. */
const UNKNOWN_POOL_SECONDS = 30 * 60;
/** Locks younger than this are left alone, whatever their pool's heartbeat says. */
const LOCK_GRACE_SECONDS = 60;

/** When this process's beats have reached the database without a break since (null: not now). */
let reachableSince: number | null = null;

/**
 * Beats for every worker pool this process runs (graphile-worker's `pool:create` event gives
 * its id, the `locked_by` of the jobs it fetches) while the pool runs; stop() removes the rows.
 */
export function startHeartbeat(db: Pool, events: EventEmitter, log: Logger): { stop(): Promise<void> } {
  const pools = new Set<string>();
  const beatAll = async () => {
    try {
      for (const id of pools) await beat(db, id);
      reachableSince ??= Date.now();
    } catch (err) {
      reachableSince = null;
      log.warn({ err: (err as Error).message }, 'worker heartbeat not recorded');
    }
  };
  events.on('pool:create', ({ workerPool }: { workerPool: { id: string } }) => {
    pools.add(workerPool.id);
    void beatAll();
  });
  // a pool that stopped by itself (graphile-worker gave up on it) stops beating, so its jobs are recovered
  events.on('pool:release', ({ workerPool }: { workerPool: { id: string } }) => pools.delete(workerPool.id));
  const timer = setInterval(() => void beatAll(), HEARTBEAT_SECONDS * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      const ids = [...pools];
      pools.clear();
      await forget(db, ids).catch(() => {});
    },
  };
}

/**
 * The recover-dead-workers task (every minute): the jobs of pools that stopped beating are
 * unlocked so that a live worker runs them, about two minutes after a crash rather than after
 * graphile-worker's 4-hour lock timeout. Nothing is decided until this process's own beats have
 * reached the database for a whole dead-after period: after an outage every pool looks silent
 * until it beats again. Every job may run twice (they are written for at-least-once).
 */
export async function recoverDeadWorkers(db: Pool, now = Date.now()): Promise<string[]> {
  if (reachableSince === null || now - reachableSince < (DEAD_AFTER_SECONDS + HEARTBEAT_SECONDS) * 1000) return [];
  return unlockDeadPools(db, { staleSeconds: DEAD_AFTER_SECONDS, unknownSeconds: UNKNOWN_POOL_SECONDS, graceSeconds: LOCK_GRACE_SECONDS });
}
