-- A transaction's jobs in one call to graphile-worker's add_jobs (src/jobs/queue.ts), on
-- generic plans: with an array argument PostgreSQL kept re-planning add_jobs's statements at
-- every call (40 % of its cost). plpgsql so that the body is resolved at the first call:
-- graphile-worker installs its schema after these migrations.
create function enqueue_jobs(tasks text[], payloads json[], queues text[], run_ats timestamptz[], attempts int[], priorities int[])
  returns bigint
  language plpgsql
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (select count(*) from graphile_worker.add_jobs(array(
    select row(t, p, q, r, m, null, pr, null)::graphile_worker.job_spec
      from unnest(tasks, payloads, queues, run_ats, attempts, priorities) as s(t, p, q, r, m, pr))));
end $$;
