begin;
select enqueue_jobs(array['route-booking'], array['{"bookingId":"x"}'::json], array[null::text], array[null::timestamptz], array[25], array[0]);
rollback;
