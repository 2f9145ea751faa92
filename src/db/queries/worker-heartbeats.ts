import type { Db } from '../pool.ts';
import { exec, rows } from '../pool.ts';

export async function beat(db: Db, poolId: string): Promise<void> {
  await exec(db, 'insert into worker_heartbeats (pool_id) values ($1) on conflict (pool_id) do update set seen_at = now()', [poolId]);
}

export async function forget(db: Db, poolIds: readonly string[]): Promise<void> {
  await exec(db, 'delete from worker_heartbeats where pool_id = any($1::text[])', [poolIds]);
}

export interface DeadPoolRules {
  /** A pool whose last beat is older than this is dead... */
  staleSeconds: number;
  /** ...and one that never beat here (a process of an earlier release) only after this long. */
  unknownSeconds: number;
  /** Locks younger than this are left alone whatever the pool's heartbeat says. */
  graceSeconds: number;
}

/**
 * Unlocks, in one statement (so a pool that beats meanwhile is not caught), the jobs of every
 * dead pool by graphile-worker's own force_unlock_workers, forgets those pools and pools silent
 * for a day, and answers the pools unlocked.
 */
export async function unlockDeadPools(db: Db, r: DeadPoolRules): Promise<string[]> {
  const found = await rows<{ pool_id: string }>(
    db,
    `with dead as (
       select distinct j.locked_by as pool_id
         from graphile_worker._private_jobs j
         left join worker_heartbeats h on h.pool_id = j.locked_by
        where j.locked_by is not null and j.locked_at < now() - make_interval(secs => $3)
          and (case when h.pool_id is null then j.locked_at < now() - make_interval(secs => $2)
                    else h.seen_at < now() - make_interval(secs => $1) end)
     ), unlocked as (
       select graphile_worker.force_unlock_workers(array(select pool_id from dead))
     ), forgotten as (
       delete from worker_heartbeats h
        where h.pool_id in (select pool_id from dead) or h.seen_at < now() - interval '1 day'
     )
     select pool_id from dead, unlocked`,
    [r.staleSeconds, r.unknownSeconds, r.graceSeconds],
  );
  return found.map((x) => x.pool_id);
}
