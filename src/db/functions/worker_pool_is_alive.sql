-- worker_pool_is_alive: whether the worker pool that locked a job is alive now.
-- Caller: stuckMessages in src/db/queries/webhook-deliveries.ts (the webhook sweeper).
-- Rule: a pool lives while its liveness lock (namespace 0x776b6c76 = 2003528822, key lock_key;
-- src/jobs/heartbeat.ts) is held, or, for a process of an earlier release (no lock_key), while it
-- beat within the last minute. A pool without a row is presumed alive (it may be registering this
-- instant); the recovery gives such pools 30 minutes. So the sweeper never revives an attempt
-- whose job a live worker runs.
create or replace function worker_pool_is_alive(p_pool_id text) returns boolean
language sql stable as $$
  select coalesce((
    select case
             when h.lock_key is not null then exists (
               select 1 from pg_locks l
                where l.locktype = 'advisory' and l.granted and l.objsubid = 2
                  and l.classid = 2003528822::bigint::oid and l.objid = h.lock_key::bigint::oid
                  and l.database = (select oid from pg_database where datname = current_database()))
             else h.seen_at > now() - interval '60 seconds'
           end
      from worker_heartbeats h
     where h.pool_id = p_pool_id), true)
$$;
