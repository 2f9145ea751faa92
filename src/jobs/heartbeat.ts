import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Pool } from '../db/pool.ts';
import { beat, deadPools, forget, unlockPools } from '../db/queries/worker-heartbeats.ts';

export const HEARTBEAT_SECONDS = 10;
/** Three missed beats: the process is gone (a live one beats even while busy: timers still run). */
export const DEAD_AFTER_SECONDS = 3 * HEARTBEAT_SECONDS;
/** Locks younger than this are left alone, whatever their pool's heartbeat says. */
const LOCK_GRACE_SECONDS = 60;

/**
 * Beats for every worker pool this process runs (graphile-worker's `pool:create` event gives
 * its id, the `locked_by` of the jobs it fetches), until stopped; stopping removes the rows.
 */
export function startHeartbeat(db: Pool, events: EventEmitter, log: Logger): { stop(): Promise<void> } {
  const pools = new Set<string>();
  const beatAll = () => {
    for (const id of pools) beat(db, id).catch((err) => log.warn({ err: (err as Error).message }, 'worker heartbeat not recorded'));
  };
  events.on('pool:create', ({ workerPool }: { workerPool: { id: string } }) => {
    pools.add(workerPool.id);
    beatAll();
  });
  const timer = setInterval(beatAll, HEARTBEAT_SECONDS * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await forget(db, [...pools]).catch(() => {});
    },
  };
}

/**
 * The recover-dead-workers task (every minute): jobs locked by a pool that stopped beating are
 * unlocked so a live worker runs them, within about two minutes of a crash instead of after
 * graphile-worker's 4-hour lock timeout. Every job here may run twice (routing, email and
 * webhook jobs are written for at-least-once). Returns the pools unlocked.
 */
export async function recoverDeadWorkers(db: Pool): Promise<string[]> {
  const dead = await deadPools(db, DEAD_AFTER_SECONDS, LOCK_GRACE_SECONDS);
  if (dead.length === 0) return [];
  await unlockPools(db, dead);
  await forget(db, dead);
  return dead;
}
