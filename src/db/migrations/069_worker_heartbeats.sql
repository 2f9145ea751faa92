-- Liveness of worker processes (src/jobs/heartbeat.ts). graphile-worker 0.17 locks the jobs a
-- process fetched under its pool id and keeps them locked for 4 hours if the process dies;
-- a process that stops beating here has its jobs unlocked by the recover-dead-workers task.
create table worker_heartbeats (
  pool_id text primary key,
  seen_at timestamptz not null default now()
);
