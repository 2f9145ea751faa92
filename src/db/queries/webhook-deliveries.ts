import type { Db, Tx } from '../pool.ts';
import { exec, one, rows } from '../pool.ts';
import type { WebhookDeliveryRow, WebhookMessageRow } from '../schema.ts';

/** A message with an attempt opened (its `pending` record committed), and what sending it needs. */
export interface OpenedAttempt {
  message: WebhookMessageRow;
  target: DeliveryTarget;
  deliveryId: string;
}

/**
 * The fan-out of one outbox event in one statement (one round trip, atomic): a message per
 * matching active subscription of the event's organization and mode (`everyActive` types
 * ignore the events list), each with its first attempt already opened (a committed `pending`
 * record, so a worker that dies before or during the send leaves a trace the sweeper acts on).
 * The caller sends those attempts at once, in the same job, so the common case costs no second
 * job. Message ids are `idBase` (random per call) + the subscriber's number in two hex digits;
 * delivery ids are `deliveryIdBase` + the same two digits. A second run for the same event adds
 * nothing and returns nothing.
 */
export async function fanOutAndOpen(
  db: Db,
  eventId: string,
  idBase: string,
  deliveryIdBase: string,
  everyActive: readonly string[],
  sentBy: string | null = null,
): Promise<OpenedAttempt[]> {
  const opened = await rows<WebhookMessageRow & { delivery_id: string; w_url: string; w_secret: string }>(
    db,
    `with e as (
       select * from booking_events where id = $1
     ), subs as (
       select w.id, w.url, w.secret_encrypted, lpad(to_hex((row_number() over (order by w.id))::int), 2, '0') as n
       from webhooks w join e on w.organization_id = e.organization_id and w.mode = e.mode
       where w.is_active and (e.type = any($4::text[]) or e.type = any(w.events))
     ), ins as (
       insert into webhook_messages (id, webhook_id, event_id, event_type, is_test, body)
       select $2 || subs.n, subs.id, e.id, e.type, false,
              json_build_object('event', e.type, 'timestamp', e.payload->>'timestamp', 'webhook_id', subs.id, 'data', e.payload->'data')::text
       from subs cross join e
       on conflict (event_id, webhook_id) do nothing
       returning *
     ), d as (
       insert into webhook_deliveries (id, message_id, webhook_id, event_id, event_type, attempt, status, sent_by)
       select $3 || right(ins.id, 2), ins.id, ins.webhook_id, ins.event_id, ins.event_type, 1, 'pending', $5 from ins
       returning id, message_id
     )
     select ins.*, d.id as delivery_id, subs.url as w_url, subs.secret_encrypted as w_secret
     from ins join d on d.message_id = ins.id join subs on subs.id = ins.webhook_id`,
    [eventId, idBase, deliveryIdBase, everyActive, sentBy],
  );
  return opened.map(({ delivery_id, w_url, w_secret, ...message }) => ({
    message,
    target: { id: message.webhook_id, url: w_url, secret_encrypted: w_secret },
    deliveryId: delivery_id,
  }));
}

/** Inserts the messages not yet there (a re-run fan-out adds nothing); returns those inserted. */
export async function insertMessages(
  tx: Tx,
  messages: Pick<WebhookMessageRow, 'id' | 'webhook_id' | 'event_id' | 'event_type' | 'is_test' | 'body'>[],
): Promise<WebhookMessageRow[]> {
  if (messages.length === 0) return [];
  return rows<WebhookMessageRow>(
    tx,
    `insert into webhook_messages (id, webhook_id, event_id, event_type, is_test, body)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[])
     on conflict (event_id, webhook_id) do nothing returning *`,
    [
      messages.map((m) => m.id),
      messages.map((m) => m.webhook_id),
      messages.map((m) => m.event_id),
      messages.map((m) => m.event_type),
      messages.map((m) => m.is_test),
      messages.map((m) => m.body),
    ],
  );
}

/** Locks the message for one attempt's bookkeeping: one job at a time decides its next step. */
export function lockMessage(tx: Tx, id: string): Promise<WebhookMessageRow | undefined> {
  return one<WebhookMessageRow>(tx, 'select * from webhook_messages where id = $1 for update', [id]);
}

/** Where and how an attempt is sent: the parts of its webhook the worker needs. */
export interface DeliveryTarget {
  id: string;
  url: string;
  secret_encrypted: string;
}

export async function updateMessage(tx: Tx, id: string, status: WebhookMessageRow['status'], nextPosition: number): Promise<void> {
  await exec(tx, 'update webhook_messages set status = $2, next_position = $3 where id = $1', [id, status, nextPosition]);
}

export interface OpenAttemptInput {
  messageId: string;
  position: number;
  deliveryId: string;
  interruptedError: string;
  /** The worker pool that sends it (`sent_by`, which the sweeper checks), or null. */
  sentBy: string | null;
}

/**
 * Opens an attempt in one statement (one round trip, atomic): locks the message; if it is still
 * pending at this position and its webhook may receive it, closes attempts left `pending` by a
 * worker that died mid-attempt (their outcome is unknown and the record says so), inserts the
 * new `pending` record numbered after every earlier one. `deliveryId` is null when no attempt
 * was opened. (A message never outlives its webhook: deleting one cascades.)
 */
export async function openAttempt(
  db: Db,
  a: OpenAttemptInput,
): Promise<(Omit<OpenedAttempt, 'deliveryId'> & { deliveryId: string | null }) | undefined> {
  const row = await one<WebhookMessageRow & { w_url: string; w_is_active: boolean; w_secret: string; delivery_id: string | null }>(
    db,
    `with m as (
       select m.*, w.url as w_url, w.is_active as w_is_active, w.secret_encrypted as w_secret
       from webhook_messages m join webhooks w on w.id = m.webhook_id
       where m.id = $1 for update of m
     ), ok as (
       select * from m where status = 'pending' and next_position = $2 and (w_is_active or is_test)
     ), closed as (
       update webhook_deliveries set status = 'failed', error = $4
       where message_id = (select id from ok) and status = 'pending' returning id
     ), ins as (
       insert into webhook_deliveries (id, message_id, webhook_id, event_id, event_type, attempt, status, sent_by)
       select $3, ok.id, ok.webhook_id, ok.event_id, ok.event_type,
              (select count(*) + 1 from webhook_deliveries where message_id = ok.id), 'pending', $5
       from ok returning id
     )
     select m.*, (select id from ins) as delivery_id from m`,
    [a.messageId, a.position, a.deliveryId, a.interruptedError, a.sentBy],
  );
  if (!row) return undefined;
  const { w_url, w_is_active: _active, w_secret, delivery_id, ...message } = row;
  return { message, target: { id: message.webhook_id, url: w_url, secret_encrypted: w_secret }, deliveryId: delivery_id };
}

/** Gives up a message whose webhook was disabled: its pending retries stop. */
export async function abandonMessage(db: Db, messageId: string, position: number): Promise<void> {
  // The delivery history stops announcing the retry that will not be made: the last attempt's
  // (the earlier ones' retries were made, and keep the time they were due).
  await exec(
    db,
    `with abandoned as (
       update webhook_messages set status = 'failed' where id = $1 and status = 'pending' and next_position = $2 returning id
     )
     update webhook_deliveries set next_attempt_at = null
      where id = (select d.id from webhook_deliveries d where d.message_id in (select id from abandoned) order by d.attempt desc limit 1)
        and next_attempt_at is not null`,
    [messageId, position],
  );
}

export interface SuccessRecord {
  deliveryId: string;
  messageId: string;
  position: number;
  webhookId: string;
  responseStatus: number;
  durationMs: number;
}

/**
 * The hot path of successful attempts, any number in one statement (one round trip, atomic):
 * each record, its message (only if that attempt's job still owns the message's current
 * position) and its webhook's failure streak (test events' too). Returns, in input order,
 * whether each attempt owned its message (false: it had moved on, so only the record was written).
 */
export async function recordSuccesses(db: Db, a: SuccessRecord[]): Promise<boolean[]> {
  const owned = await rows<{ owned: boolean }>(
    db,
    `with i as (
       select * from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::int[])
         with ordinality as t(delivery_id, message_id, position, webhook_id, response_status, duration_ms, n)
     ), m as (
       update webhook_messages wm set status = 'succeeded' from i
       where wm.id = i.message_id and wm.status = 'pending' and wm.next_position = i.position returning wm.id
     ), d as (
       update webhook_deliveries wd set status = 'succeeded', response_status = i.response_status, duration_ms = i.duration_ms, error = null, next_attempt_at = null
       from i where wd.id = i.delivery_id returning wd.id
     ), w as (
       update webhooks set consecutive_failures = 0
       where consecutive_failures <> 0 and id in (select i.webhook_id from i join m on m.id = i.message_id) returning id
     )
     select exists (select 1 from m where m.id = i.message_id) as owned from i order by i.n`,
    [
      a.map((r) => r.deliveryId),
      a.map((r) => r.messageId),
      a.map((r) => r.position),
      a.map((r) => r.webhookId),
      a.map((r) => r.responseStatus),
      a.map((r) => r.durationMs),
    ],
  );
  return owned.map((r) => r.owned);
}

export async function finishAttempt(
  tx: Tx,
  id: string,
  r: Pick<WebhookDeliveryRow, 'status' | 'response_status' | 'duration_ms' | 'error' | 'next_attempt_at'>,
): Promise<void> {
  await exec(
    tx,
    `update webhook_deliveries set status = $2, response_status = $3, duration_ms = $4, error = $5, next_attempt_at = $6 where id = $1`,
    [id, r.status, r.response_status, r.duration_ms, r.error, r.next_attempt_at],
  );
}

/**
 * Messages whose `pending` attempt is older than `olderThanSeconds` (longer than any attempt can
 * take: the 5 s limit plus bookkeeping) and that no live worker is working on: the pool that
 * sends it (`sent_by`) is dead (its liveness lock free, or its row gone: a dead pool's row is
 * deleted once its jobs are recovered, where worker_pool_is_alive presumes a pool without a row
 * alive, as one whose job is locked may be registering), or has had it for more than
 * `senderTrustedSeconds` (its outcome could not be recorded), and neither the message's own job
 * (a retry, a test event, a revived attempt) nor the fan-out of its event (a first attempt of the
 * release before 087, whose job held the send) is locked by a pool that is alive now
 * (src/db/functions/worker_pool_is_alive.sql).
 * Records are stamped by the database clock, so this compares with it too.
 */
export function stuckMessages(
  db: Db,
  olderThanSeconds: number,
  jobs: { messageKeyPrefix: string; dispatchTask: string },
  senderTrustedSeconds: number,
): Promise<Array<{ message_id: string; next_position: number }>> {
  return rows(
    db,
    `select distinct m.id as message_id, m.next_position
     from webhook_deliveries d join webhook_messages m on m.id = d.message_id
     where d.status = 'pending' and m.status = 'pending' and d.created_at < clock_timestamp() - make_interval(secs => $1)
       and (d.sent_by is null or d.created_at < clock_timestamp() - make_interval(secs => $4)
            or not exists (select 1 from worker_heartbeats h where h.pool_id = d.sent_by and worker_pool_is_alive(h.pool_id)))
       and not exists (
         select 1 from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
          where j.locked_by is not null
            and ((t.identifier = 'deliver-webhook' and j.key = $2 || m.id)
                 or (t.identifier = $3 and j.payload->>'eventId' = m.event_id))
            and worker_pool_is_alive(j.locked_by))
     limit 1000`,
    [olderThanSeconds, jobs.messageKeyPrefix, jobs.dispatchTask, senderTrustedSeconds],
  );
}

export async function anyWebhooks(db: Db): Promise<boolean> {
  return (await one<{ any: boolean }>(db, 'select exists (select 1 from webhooks) as any'))!.any;
}

export interface HistoryFilter {
  webhookId: string;
  limit: number;
  offset: number;
  status?: 'succeeded' | 'failed';
  eventType?: string;
}

export async function listAttempts(db: Db, f: HistoryFilter): Promise<{ rows: WebhookDeliveryRow[]; total: number }> {
  const where = 'where webhook_id = $1 and ($2::text is null or status = $2) and ($3::text is null or event_type = $3)';
  const params = [f.webhookId, f.status ?? null, f.eventType ?? null];
  const [list, count] = await Promise.all([
    rows<WebhookDeliveryRow>(
      db,
      `select * from webhook_deliveries ${where} order by created_at desc, attempt desc, id desc limit $4 offset $5`,
      [...params, f.limit, f.offset],
    ),
    one<{ n: number }>(db, `select count(*) as n from webhook_deliveries ${where}`, params),
  ]);
  return { rows: list, total: count!.n };
}

export interface AttemptStats {
  total: number;
  succeeded: number;
  failed: number;
  pending: number;
  last_success_at: Date | null;
  last_failure_at: Date | null;
}

export async function attemptStats(db: Db, webhookId: string): Promise<AttemptStats> {
  return (await one<AttemptStats>(
    db,
    `select count(*) as total,
       count(*) filter (where status = 'succeeded') as succeeded,
       count(*) filter (where status = 'failed') as failed,
       count(*) filter (where status = 'pending') as pending,
       max(created_at) filter (where status = 'succeeded') as last_success_at,
       max(created_at) filter (where status = 'failed') as last_failure_at
     from webhook_deliveries where webhook_id = $1`,
    [webhookId],
  ))!;
}
