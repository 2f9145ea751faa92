-- Each member's active holds per UTC day of their start, packed: what an availability or
-- free/busy answer over a range of days reads instead of the holds themselves (busyOfMembers,
-- src/db/queries/busy.ts). The availability bench's uncached answer (20 hosts, 14 days) read
-- 2,000 holds and turned three numbers of each into text: about 1.15 ms of PostgreSQL per answer
-- (pgbench, one client). The same holds as 200 of these rows, joined into one value per member,
-- took about 0.23 ms.
--
-- `holds` is 16 bytes per active hold (src/db/functions/hold_busy_record.sql), in no order. Kept by trigger booking_members_busy_days
-- (src/db/functions/member_busy_days_sync.sql) in the transaction that changes the holds, so a
-- reader sees the two alike; a day left with no hold loses its row. Derived data: the holds stay
-- the record, and the exclusion constraint on them the guarantee against double booking.
--
-- Created empty: the trigger's file fills it from the holds when it first creates the trigger,
-- in the transaction that creates it and with hold writes locked out, so that no hold written
-- between this migration and the trigger (by a process of the release before, say) is missed.
--
-- No foreign key to members: the holds that this mirrors already have one, and the check would
-- cost every new day's first hold a lookup. Fillfactor 70: nearly every write appends to a row,
-- and room on its page keeps that a HOT update.
create table member_busy_days (
  member_id uuid not null,
  mode text not null,
  day date not null,
  holds bytea not null,
  primary key (member_id, mode, day)
) with (fillfactor = 70);
