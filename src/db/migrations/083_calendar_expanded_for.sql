-- The member and time zone a connected calendar's stored busy blocks were expanded for (set by
-- each successful sync). A seed that moves the calendar to another member, or changes its
-- member's time zone, makes them differ from the calendar's owner: the seed moves the blocks to
-- the owner at once, and the next sync expands every stored resource again in the owner's zone
-- (all-day and floating events depend on it). Null, as for every connection synced before this
-- column: expanded again at its next sync.
alter table calendar_connections add column expanded_for uuid, add column expanded_timezone text;
