-- Bumped by `seed` whenever it changes an organization's configuration (working hours,
-- out-of-office, members, event types), so cached availability answers, which are keyed
-- by it, are dropped at once by every process instead of living out their TTL.
alter table organizations add column schedule_version bigint not null default 0;
