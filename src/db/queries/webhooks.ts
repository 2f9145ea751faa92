import type { Db, Tx } from '../pool.ts';
import type { Caller } from '../../domain/vocabulary.ts';
import { exec, one, rows } from '../pool.ts';
import type { WebhookRow } from '../schema.ts';

/** Which webhook: an id only ever matches inside its own organization and mode. */
export type Scope = Caller;

export async function insertWebhook(
  db: Db,
  w: Pick<WebhookRow, 'id' | 'organization_id' | 'mode' | 'url' | 'events' | 'description' | 'secret_encrypted' | 'created_at'>,
): Promise<WebhookRow> {
  return (await one<WebhookRow>(
    db,
    `insert into webhooks (id, organization_id, mode, url, events, description, secret_encrypted, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $8) returning *`,
    [w.id, w.organization_id, w.mode, w.url, w.events, w.description, w.secret_encrypted, w.created_at],
  ))!;
}

/**
 * The lock that orders subscription changes against booking events of one organization and
 * mode: exclusive to add or activate a subscription, shared to record an event (which
 * record_events takes itself). An event that saw no active subscription therefore committed
 * before any subscription that could want it. The keys and their order are the database's
 * (src/db/functions/lock_subscriptions.sql); only shared locks are ever taken several at a time.
 */
export async function lockSubscriptions(tx: Tx, scopes: Scope | readonly Scope[], how: 'exclusive' | 'shared'): Promise<void> {
  const list: readonly Scope[] = Array.isArray(scopes) ? scopes : [scopes as Scope];
  if (how === 'exclusive' && new Set(list.map((s) => `${s.organizationId}:${s.mode}`)).size > 1) {
    throw new Error('lockSubscriptions: one exclusive lock at a time');
  }
  await exec(tx, 'select lock_subscriptions(orgs => $1::text[], modes => $2::text[], exclusive => $3)', [
    list.map((s) => s.organizationId),
    list.map((s) => s.mode),
    how === 'exclusive',
  ]);
}

export function countWebhooks(db: Db, s: Scope): Promise<number> {
  return one<{ n: number }>(db, 'select count(*) as n from webhooks where organization_id = $1 and mode = $2', [
    s.organizationId,
    s.mode,
  ]).then((r) => r!.n);
}

export function listWebhooks(db: Db, s: Scope): Promise<WebhookRow[]> {
  return rows<WebhookRow>(db, 'select * from webhooks where organization_id = $1 and mode = $2 order by created_at, id', [
    s.organizationId,
    s.mode,
  ]);
}

export function findWebhook(db: Db, s: Scope, id: string): Promise<WebhookRow | undefined> {
  return one<WebhookRow>(db, 'select * from webhooks where id = $1 and organization_id = $2 and mode = $3', [id, s.organizationId, s.mode]);
}

export interface WebhookChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  is_active?: boolean;
  /** Re-enabling clears the reason and the failure count. */
  reset_failures?: boolean;
  secret_encrypted?: string;
  rotated_at?: Date;
}

/** The changed webhook, or undefined when the scope has no webhook `id`. */
export function updateWebhook(db: Db, s: Scope, id: string, c: WebhookChanges, now: Date): Promise<WebhookRow | undefined> {
  return one<WebhookRow>(
    db,
    `update webhooks set
       url = coalesce($2, url),
       events = coalesce($3, events),
       description = case when $4::boolean then $5 else description end,
       is_active = coalesce($6, is_active),
       failure_reason = case when $7::boolean then null else failure_reason end,
       consecutive_failures = case when $7::boolean then 0 else consecutive_failures end,
       secret_encrypted = coalesce($8, secret_encrypted),
       rotated_at = coalesce($9, rotated_at),
       updated_at = $10
     where id = $1 and organization_id = $11 and mode = $12 returning *`,
    [
      id,
      c.url ?? null,
      c.events ?? null,
      c.description !== undefined,
      c.description ?? null,
      c.is_active ?? null,
      c.reset_failures === true,
      c.secret_encrypted ?? null,
      c.rotated_at ?? null,
      now,
      s.organizationId,
      s.mode,
    ],
  );
}

export function deleteWebhook(db: Db, s: Scope, id: string): Promise<number> {
  return exec(db, 'delete from webhooks where id = $1 and organization_id = $2 and mode = $3', [id, s.organizationId, s.mode]);
}

/**
 * Takes the webhook's test slot when its last test is at least `intervalSeconds` old: a locked,
 * conditional update, so two processes racing for the same minute cannot both win. Answers
 * whether it was taken and when the test before was (for Retry-After); undefined when the
 * scope has no webhook `id`.
 */
export function claimTestSlot(
  db: Db,
  s: Scope,
  id: string,
  now: Date,
  intervalSeconds: number,
): Promise<{ claimed: boolean; previous: Date | null } | undefined> {
  return one<{ claimed: boolean; previous: Date | null }>(
    db,
    `with w as (select id, last_test_at from webhooks where id = $1 and organization_id = $4 and mode = $5 for update),
          taken as (update webhooks set last_test_at = $2 from w
                     where webhooks.id = w.id
                       and (w.last_test_at is null or w.last_test_at <= $2::timestamptz - make_interval(secs => $3))
                    returning webhooks.id)
     select exists (select 1 from taken) as claimed, w.last_test_at as previous from w`,
    [id, now, intervalSeconds, s.organizationId, s.mode],
  );
}

/** A failed attempt: one more in the streak; at `limit` the webhook is disabled with `reason`. */
export async function recordAttemptFailure(tx: Tx, id: string, limit: number, reason: string): Promise<{ is_active: boolean } | undefined> {
  return one<{ is_active: boolean }>(
    tx,
    `update webhooks set consecutive_failures = consecutive_failures + 1,
       is_active = case when is_active and consecutive_failures + 1 >= $2 then false else is_active end,
       failure_reason = case when is_active and consecutive_failures + 1 >= $2 then $3 else failure_reason end,
       updated_at = case when is_active and consecutive_failures + 1 >= $2 then now() else updated_at end
     where id = $1 returning is_active`,
    [id, limit, reason],
  );
}
