-- hold_busy_record: one active hold as its 16-byte record in member_busy_days.holds.
-- Caller: member_busy_days_sync and member_busy_days_rebuild; decoded by busyOfMembers
-- (src/db/queries/busy.ts).
-- Rule: big-endian, the start of the hold's buffered interval in epoch milliseconds (int8), the
-- interval's length in milliseconds (int4), the booking's start after the interval's start
-- (int4). The first 8 bytes tell a member's active holds of one mode apart (they never overlap).
create or replace function hold_busy_record(during_start_ms bigint, during_end_ms bigint, start_ms bigint)
  returns bytea
  language sql immutable parallel safe
  return int8send(during_start_ms) || int4send((during_end_ms - during_start_ms)::int) || int4send((start_ms - during_start_ms)::int);
