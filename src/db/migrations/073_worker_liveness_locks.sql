-- Worker liveness by advisory lock (src/jobs/heartbeat.ts). A worker process holds a session
-- advisory lock (namespace 0x776b6c76, key lock_key) on a connection of its own while it runs;
-- PostgreSQL releases it when that connection ends, which it does when the process dies. A pool
-- whose lock has been free for a few seconds (lost_at: when it was first seen free) is dead and
-- its jobs are unlocked. Rows without lock_key are processes of an earlier release, judged by
-- seen_at as before.
alter table worker_heartbeats add column lock_key integer, add column lost_at timestamptz;
