import type { Db } from '../pool.ts';
import { exec, rows } from '../pool.ts';

export async function beat(db: Db, poolId: string): Promise<void> {
  await exec(db, 'insert into worker_heartbeats (pool_id) values ($1) on conflict (pool_id) do update set seen_at = now()', [poolId]);
}

export async function forget(db: Db, poolIds: readonly string[]): Promise<void> {
  await exec(db, 'delete from worker_heartbeats where pool_id = any($1::text[])', [poolIds]);
}

/**
 * Pools holding a job locked for over `graceSeconds` that have not beaten for `staleSeconds`
 * (or never did here, e.g. a process of a release before heartbeats).
 */
export async function deadPools(db: Db, staleSeconds: number, graceSeconds: number): Promise<string[]> {
  const found = await rows<{ pool_id: string }>(
    db,
    `select distinct j.locked_by as pool_id
       from graphile_worker.jobs j
       left join worker_heartbeats h on h.pool_id = j.locked_by
      where j.locked_by is not null and j.locked_at < now() - make_interval(secs => $2)
        and (h.seen_at is null or h.seen_at < now() - make_interval(secs => $1))`,
    [staleSeconds, graceSeconds],
  );
  return found.map((r) => r.pool_id);
}

/** graphile-worker's own unlock: the pools' jobs (and queues) become available again. */
export async function unlockPools(db: Db, poolIds: readonly string[]): Promise<void> {
  await exec(db, 'select graphile_worker.force_unlock_workers($1::text[])', [poolIds]);
}
