begin;
select count(*) from graphile_worker.add_jobs(array(select row(t, p, q, r, m, null, pr, null)::graphile_worker.job_spec from unnest(array['route-booking'], array['{"bookingId":"x"}'::json], array[null::text], array[null::timestamptz], array[25], array[0]) as s(t, p, q, r, m, pr)));
rollback;
