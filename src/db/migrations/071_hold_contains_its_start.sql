-- A hold's buffered interval contains its start (every writer builds it as [start - buffer
-- before, end + buffer after) with end > start and buffers >= 0). The per-day cap's count
-- (migration 070) relies on it: it finds "holds starting in the day" among the holds whose
-- interval overlaps the day. The rule is the schema's, not only the writers'. Added NOT VALID,
-- then validated: validation does not block writes.
alter table booking_members add constraint booking_members_during_contains_start check (during @> start_time) not valid;
alter table booking_members validate constraint booking_members_during_contains_start;
