import type pg from 'pg';
import type { Db } from '../pool.ts';

/** The pool, or the worker's own liveness connection (a pg.Client outside any pool). */
type Conn = Db | pg.Client;

/** The advisory lock namespace (first key) of worker liveness locks: "wklv". */
export const LIVENESS_LOCK_NAMESPACE = 0x776b6c76;

/** Takes this session's liveness lock; false when another session holds that key. */
export async function tryLivenessLock(db: Conn, key: number): Promise<boolean> {
  const found = await db.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [LIVENESS_LOCK_NAMESPACE, key]);
  return found.rows[0]?.ok === true;
}

/** Records (again) that these pools live as long as the lock `key` is held; also the beat earlier releases read. A released pool stays released. */
export async function registerPools(db: Conn, poolIds: readonly string[], key: number): Promise<void> {
  await db.query(
    `insert into worker_heartbeats (pool_id, lock_key) select unnest($1::text[]), $2
     on conflict (pool_id) do update set seen_at = now(), lock_key = excluded.lock_key, lost_at = null
       where worker_heartbeats.lost_at is distinct from '-infinity'`,
    [poolIds, key],
  );
}

/**
 * A pool that stopped by itself: dead at the next check, though its process (and lock) lives on.
 * Its row is judged as an earlier release's (no lock) whose last beat is an hour old; lost_at
 * -infinity marks it released, so that no later beat of this process revives it.
 */
export async function releasePool(db: Conn, poolId: string): Promise<void> {
  await db.query(
    `update worker_heartbeats set lock_key = null, seen_at = now() - interval '1 hour', lost_at = '-infinity' where pool_id = $1`,
    [poolId],
  );
}

export async function forget(db: Conn, poolIds: readonly string[]): Promise<void> {
  await db.query('delete from worker_heartbeats where pool_id = any($1::text[])', [poolIds]);
}

export interface DeadPoolRules {
  /** A pool whose liveness lock has been free this long is dead. */
  lostSeconds: number;
  /** A pool of an earlier release (no lock) whose last beat is older than this is dead... */
  staleSeconds: number;
  /** ...and one that never beat here (a process of a release before heartbeats) only after this long. */
  unknownSeconds: number;
  /** False: only note free locks (lost_at), decide nothing (the checker has just connected). */
  decide: boolean;
}

/**
 * One check, in one statement (so that a pool taking its lock meanwhile is not caught):
 * - a registered pool whose lock is held has lost_at cleared; one whose lock is free has it set
 *   when first seen so; one whose lock has been free for lostSeconds is dead;
 * - a pool without a lock is dead when its beat is staleSeconds old, a pool that holds jobs and
 *   never registered when its jobs were locked unknownSeconds ago;
 * then the jobs of every dead pool are unlocked by graphile-worker's own force_unlock_workers,
 * those pools (and pools silent for a day) are forgotten, and the dead pools are answered.
 */
export async function unlockDeadPools(db: Conn, r: DeadPoolRules): Promise<string[]> {
  const found = await db.query<{ pool_id: string }>(
    `with held as (
       select l.objid::bigint as lock_key
         from pg_locks l
        where l.locktype = 'advisory' and l.granted and l.objsubid = 2 and l.classid = $4::bigint::oid
          and l.database = (select oid from pg_database where datname = current_database())
     ), registered as (
       select h.pool_id, h.lock_key, h.lost_at, h.seen_at, h.lock_key is not null and h.lock_key::bigint in (select lock_key from held) as alive
         from worker_heartbeats h
     ), cleared as (
       update worker_heartbeats h set lost_at = null
         from registered r where r.pool_id = h.pool_id and r.alive and r.lost_at is not null
     ), marked as (
       update worker_heartbeats h set lost_at = now()
         from registered r where r.pool_id = h.pool_id and r.lock_key is not null and not r.alive and r.lost_at is null
     ), dead as (
       select pool_id from registered
        where $5 and ((lock_key is not null and not alive and lost_at < now() - make_interval(secs => $1))
           or (lock_key is null and seen_at < now() - make_interval(secs => $2)))
       union
       select distinct j.locked_by
         from graphile_worker._private_jobs j
        where $5 and j.locked_by is not null and j.locked_at < now() - make_interval(secs => $3)
          and not exists (select 1 from registered r where r.pool_id = j.locked_by)
     ), unlocked as (
       select graphile_worker.force_unlock_workers(array(select pool_id from dead))
     ), forgotten as (
       delete from worker_heartbeats h
        where h.pool_id in (select pool_id from dead) or h.seen_at < now() - interval '1 day'
     )
     select pool_id from dead, unlocked`,
    [r.lostSeconds, r.staleSeconds, r.unknownSeconds, LIVENESS_LOCK_NAMESPACE, r.decide],
  );
  return found.rows.map((x) => x.pool_id);
}
