-- enqueue_jobs: adds a transaction's keyless jobs in one call to graphile-worker's add_jobs.
-- Caller: flush in src/db/jobs.ts (the jobs `enqueue` collected in a transaction, added as its
-- last statement) and create_booking.
-- Rule: none of its own: it inserts the jobs it is given. Which jobs exist and what they carry
-- is decided in TypeScript; `jobs` is a JSON array of graphile_worker.job_spec records
-- ({identifier, payload, queue_name, run_at, max_attempts, priority}).
--
-- On generic plans: with an array argument PostgreSQL kept re-planning add_jobs's statements at
-- every call (40 % of its cost). Generic plans are settled at a session's first calls while the
-- jobs table is small: add_jobs's keyed-job UPDATE would then scan the whole table at every
-- enqueue, dead rows included, and without autovacuum those only grow; index access keeps it a
-- lookup (no job of ours has a key, so it finds nothing). plpgsql so that the body is resolved
-- at the first call: graphile-worker installs its schema after ours.
create or replace function enqueue_jobs(jobs jsonb)
  returns bigint
  language plpgsql
  set plan_cache_mode = force_generic_plan
  set enable_seqscan = off
as $$
begin
  return (select count(*) from graphile_worker.add_jobs(array(
    select s from jsonb_populate_recordset(null::graphile_worker.job_spec, jobs) as s)));
end $$;
