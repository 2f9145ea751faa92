-- bookings_event_type without `status`, so that a booking's status changes (routing, confirm,
-- cancel, complete, no-show) touch no index column and PostgreSQL can make them HOT updates:
-- the new row version goes on the same page and no index gets a new entry. With `status` in
-- the index, routing alone added an entry to each of the table's four full indexes for every
-- booking (pkey, list, event type, attendee email), so they grew twice as fast as the table
-- until a vacuum. Measured on the creates bench (4,300 bookings routed): 0 of 4,092 routing
-- updates were HOT before, 4,112 of 4,300 after (the rest found their page full), WAL per create
-- 13.9 → 13.4 KB. docs/database.md, "Updates that add no index entry".
-- The one reader that filtered on status, the active bookings of an event type (deactivating
-- or deleting it), reads the type's bookings by event_type_id and checks status on the row.
drop index bookings_event_type;
create index bookings_event_type on bookings (event_type_id);
