-- A hold's instants as epoch milliseconds, computed once when the hold is written instead of at
-- every read: GET /availability reads about 2,000 holds per uncached answer (20 hosts, 14 days)
-- and its statement (busyOfMembers, src/db/queries/busy.ts) spent about a third of its time
-- turning three timestamps per hold into numbers (date_part, then bigint, then text).
-- Generated columns, so every writer (hold_members, tests, bulk loads) gets them without a word.
-- `x - epoch` (timestamptz minus timestamptz) and date_part of an interval are immutable, as a
-- generated column needs; date_part of a timestamptz itself is only stable.
-- Adding them rewrites booking_members and its indexes under an exclusive lock, during which
-- booking writes wait (docs/operations.md, "Rolling deploys"): 1.5 s for 1.2 M rows with one
-- btree index on the bench machine; the GiST exclusion index makes it several seconds.
alter table booking_members
  add column during_start_ms bigint not null
    generated always as ((date_part('epoch', lower(during) - '1970-01-01 00:00:00+00'::timestamptz) * 1000)::bigint) stored,
  add column during_end_ms bigint not null
    generated always as ((date_part('epoch', upper(during) - '1970-01-01 00:00:00+00'::timestamptz) * 1000)::bigint) stored,
  add column start_ms bigint not null
    generated always as ((date_part('epoch', start_time - '1970-01-01 00:00:00+00'::timestamptz) * 1000)::bigint) stored;
