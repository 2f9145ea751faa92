import { randomInt } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Pool } from '../db/pool.ts';
import { forget, registerPools, releasePool, tryLivenessLock, unlockDeadPools } from '../db/queries/worker-heartbeats.ts';

/** Rows are refreshed this often (seen_at, which processes of earlier releases judge liveness by). */
export const HEARTBEAT_SECONDS = 10;
/** Every live worker process checks for dead ones this often. */
export const CHECK_EVERY_SECONDS = 2;
/**
 * A pool whose liveness lock has been free this long is dead. A live process whose liveness
 * connection was cut (a terminated backend, a restarted server) takes its lock again within about
 * a second, so it is never caught; a process that died is caught within this plus one check.
 */
export const LOST_AFTER_SECONDS = 10;
/** A pool of an earlier release (heartbeat only): six missed beats. */
export const DEAD_AFTER_SECONDS = 6 * HEARTBEAT_SECONDS;
/** A pool with no heartbeat row (a process of a release before heartbeats) is presumed alive this long. */
const UNKNOWN_POOL_SECONDS = 30 * 60;
const RECONNECT_MS = 500;

/**
 * Liveness of this worker process, by a PostgreSQL session advisory lock held on a connection of
 * its own: the server releases the lock the moment that connection ends, which it does when the
 * process dies (kill -9 closes its sockets; a lost machine is found by TCP keepalives within
 * about 11 s). The rows of worker_heartbeats name the lock each pool (graphile-worker's
 * `locked_by`) lives by. Every live process checks every CHECK_EVERY_SECONDS for pools whose lock
 * has been free for LOST_AFTER_SECONDS and unlocks their jobs (unlockDeadPools), so a crashed
 * process's jobs run again within about 15 s, rather than after graphile-worker's 4-hour lock
 * timeout. Jobs are written for at-least-once, but a live process is never caught: it holds its
 * lock all along, and one that lost its connection retakes it (and clears the mark) within a
 * second. Free locks are noted by every check, but a pool is only declared dead by a process whose
 * own connection has been up for LOST_AFTER_SECONDS: after a server restart every lock is free
 * until its process reconnects.
 */
export interface Heartbeat {
  /** Settles once the first attempt to take the lock is over (taken, or retrying in the background). */
  ready: Promise<void>;
  /** A pool of this process that gave up: dead at the next check, though this process lives on. */
  release(poolId: string): void;
  stop(): Promise<void>;
}

export function startHeartbeat(db: Pool, events: EventEmitter, log: Logger): Heartbeat {
  const pools = new Set<string>();
  let client: pg.Client | null = null;
  let key = 0;
  let upSince: number | null = null;
  let stopped = false;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let lastError = '';

  const register = async (ids: string[]) => {
    if (!client || upSince === null || ids.length === 0) return;
    await registerPools(client, ids, key).catch((err: Error) => warnOnce(`worker liveness not recorded: ${err.message}`));
  };
  const warnOnce = (message: string) => {
    if (message !== lastError) log.warn(message);
    lastError = message;
  };

  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({
      ...(db as unknown as { options: pg.ClientConfig }).options,
      application_name: 'booking-service worker liveness',
      keepAlive: true,
    });
    c.on('error', () => {});
    c.on('end', () => {
      if (client !== c) return;
      client = null;
      upSince = null;
      if (!stopped) reconnectTimer = setTimeout(() => void connect(), RECONNECT_MS);
    });
    try {
      await c.connect();
      // a machine that vanished without closing its sockets: the server ends the session within ~11 s
      await c.query('set tcp_keepalives_idle = 5; set tcp_keepalives_interval = 2; set tcp_keepalives_count = 3').catch(() => {});
      let locked = false;
      for (let i = 0; i < 5 && !locked; i++) {
        if (key === 0 || i > 0) key = randomInt(1, 2 ** 31 - 1);
        locked = await tryLivenessLock(c, key);
      }
      if (!locked) throw new Error('no free liveness lock key');
      if (stopped) {
        await c.end();
        return;
      }
      client = c;
      upSince = Date.now();
      if (lastError) log.info('worker liveness connection restored');
      lastError = '';
      await register([...pools]);
    } catch (err) {
      warnOnce(`worker liveness connection failed, retrying: ${(err as Error).message}`);
      await c.end().catch(() => {});
      if (client === c) client = null;
      if (!stopped && client === null) reconnectTimer = setTimeout(() => void connect(), RECONNECT_MS);
    }
  };
  const ready = connect();

  events.on('pool:create', ({ workerPool }: { workerPool: { id: string } }) => {
    pools.add(workerPool.id);
    void register([workerPool.id]);
  });
  // releases not yet recorded (the database may be away when a pool gives up): retried at every check
  const toRelease = new Set<string>();
  const flushReleases = async () => {
    for (const poolId of [...toRelease]) {
      try {
        await releasePool(client ?? db, poolId);
        toRelease.delete(poolId);
      } catch (err) {
        warnOnce(`worker pool release not recorded yet: ${(err as Error).message}`);
        return;
      }
    }
  };
  const release = (poolId: string) => {
    if (!pools.delete(poolId) || stopped) return;
    toRelease.add(poolId);
    void flushReleases();
  };

  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      if (toRelease.size > 0) await flushReleases();
      if (!client || upSince === null) return;
      // free locks are noted at once; deciding waits until this connection has been up a while
      const dead = await recoverDeadWorkers(client, Date.now() - upSince >= LOST_AFTER_SECONDS * 1000);
      if (dead.length > 0) log.warn({ pools: dead }, 'unlocked the jobs of worker processes that stopped');
    } catch (err) {
      warnOnce(`dead worker check failed: ${(err as Error).message}`);
    } finally {
      checking = false;
    }
  };
  const beatTimer = setInterval(() => void register([...pools]), HEARTBEAT_SECONDS * 1000);
  const checkTimer = setInterval(() => void check(), CHECK_EVERY_SECONDS * 1000);
  beatTimer.unref();
  checkTimer.unref();
  return {
    ready,
    release,
    async stop() {
      stopped = true;
      clearInterval(beatTimer);
      clearInterval(checkTimer);
      clearTimeout(reconnectTimer);
      const ids = [...pools];
      pools.clear();
      const c = client;
      client = null;
      // a process that stops cleanly hands its jobs back itself; its rows and lock go with it
      await forget(c ?? db, ids).catch(() => {});
      await c?.end().catch(() => {});
    },
  };
}

/** Unlocks the jobs of dead worker pools (see startHeartbeat); answers the pools unlocked. */
export async function recoverDeadWorkers(db: Pool | pg.Client, decide = true): Promise<string[]> {
  return unlockDeadPools(db, {
    lostSeconds: LOST_AFTER_SECONDS,
    staleSeconds: DEAD_AFTER_SECONDS,
    unknownSeconds: UNKNOWN_POOL_SECONDS,
    decide,
  });
}
