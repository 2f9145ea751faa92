-- Busy blocks that ended before the calendar sync window (start of yesterday, UTC) count for
-- nothing any more; the enforce-retention job deletes them oldest first, which this index serves
-- (src/jobs/tasks/enforce-retention.ts). A calendar that syncs replaces its blocks itself; these
-- are the leftovers of calendars that stopped syncing (ERROR, NEEDS_REAUTH).
create index calendar_busy_end on calendar_busy (end_time);
