-- lock_subscriptions: the lock that orders subscription changes against booking events of one
-- organization and mode.
-- Caller: lockSubscriptions in src/db/queries/webhooks.ts (exclusive, when a subscription is
-- added or activated) and record_events (shared, before an event is written).
-- Rule: an event that saw no active subscription committed before any subscription that could
-- want it. Keys are taken in one fixed order ("C" collation), so that batches taking several
-- shared locks queue behind an exclusive one alike.
create or replace function lock_subscriptions(orgs text[], modes text[], exclusive boolean) returns void
  language plpgsql as $$
declare
  k text;
begin
  -- one key (every create, most changes): no query to sort keys, which cost more than the lock
  if cardinality(orgs) = 1 then
    k := 'webhooks:' || orgs[1] || ':' || modes[1];
    if exclusive then
      perform pg_advisory_xact_lock(hashtext(k));
    else
      perform pg_advisory_xact_lock_shared(hashtext(k));
    end if;
    return;
  end if;
  for k in select s.k from (select distinct 'webhooks:' || o || ':' || m as k from unnest(orgs, modes) as u(o, m)) s
            order by s.k collate "C" loop
    if exclusive then
      perform pg_advisory_xact_lock(hashtext(k));
    else
      perform pg_advisory_xact_lock_shared(hashtext(k));
    end if;
  end loop;
end $$;
