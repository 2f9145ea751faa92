import type { Db } from '../pool.ts';
import { exec, rows } from '../pool.ts';
import type { IdempotencyKeyRow } from '../schema.ts';

/** A key's record as a claim or replay reads it, with whether it outlived 24 hours and its lock. */
export type IdempotencyRow = Pick<IdempotencyKeyRow, 'request_hash' | 'state' | 'response_status' | 'response_body'> & {
  expired: boolean;
  lock_expired: boolean;
};

export interface IdemKey {
  organizationId: string;
  mode: string;
  /** The team the request acts on; '' for requests about no one team (idempotency_keys.team_id, src/db/schema.sql). */
  teamId: string;
  key: string;
}

const KEY = 'organization_id = $1 and mode = $2 and team_id = $3 and key = $4';
const ROW = `request_hash, state, response_status, response_body,
             created_at < now() - interval '24 hours' as expired,
             coalesce(locked_until < now(), true) as lock_expired`;
const keyParams = (k: IdemKey) => [k.organizationId, k.mode, k.teamId, k.key];

/**
 * The same request (same fingerprint) under this key in another team, still live: done, or
 * running with its lock held. It is this request (the team is looked up at request time, and
 * an event type may have moved since, or the record predate per-team keys), so it blocks a claim.
 */
const SAME_REQUEST_ELSEWHERE = `e.organization_id = $1 and e.mode = $2 and e.key = $4 and e.team_id <> $3 and e.request_hash = $5
  and e.created_at >= now() - interval '24 hours'`;

/**
 * Claims the key for a new request: false when this team has a record of the key already, or
 * the same request is live under the key in another team. One statement, the whole cost of a new key.
 */
export async function claim(db: Db, k: IdemKey, hash: string, lockSeconds: number): Promise<boolean> {
  const n = await exec(
    db,
    `insert into idempotency_keys (organization_id, mode, team_id, key, request_hash, state, locked_until)
     select $1, $2, $3, $4, $5, 'running', now() + make_interval(secs => $6)
      where not exists (select 1 from idempotency_keys e
                         where ${SAME_REQUEST_ELSEWHERE} and (e.state = 'done' or e.locked_until >= now()))
     on conflict do nothing`,
    [...keyParams(k), hash, lockSeconds],
  );
  return n === 1;
}

/** After a refused claim: this team's record of the key, and the newest same request elsewhere. */
export async function findForRequest(db: Db, k: IdemKey, hash: string): Promise<{ own?: IdempotencyRow; elsewhere?: IdempotencyRow }> {
  const found = await rows<IdempotencyRow & { own: boolean }>(
    db,
    `select ${ROW}, e.team_id = $3 as own
       from idempotency_keys e
      where (${KEY}) or (${SAME_REQUEST_ELSEWHERE})
      order by e.created_at desc`,
    [...keyParams(k), hash],
  );
  return { own: found.find((r) => r.own), elsewhere: found.find((r) => !r.own) };
}

/** Takes over an expired record or an abandoned running one (its process died). */
export async function reclaim(db: Db, k: IdemKey, hash: string, lockSeconds: number): Promise<boolean> {
  const n = await exec(
    db,
    `update idempotency_keys set request_hash = $5, state = 'running', response_status = null,
            response_body = null, created_at = now(), locked_until = now() + make_interval(secs => $6)
      where ${KEY}
        and (created_at < now() - interval '24 hours' or (state = 'running' and locked_until < now()))`,
    [...keyParams(k), hash, lockSeconds],
  );
  return n === 1;
}

/** Stores the response as sent: `body` is its JSON text, kept in its key order (a `json` column). */
export async function complete(db: Db, k: IdemKey, status: number, body: string | null): Promise<void> {
  await exec(
    db,
    `update idempotency_keys set state = 'done', response_status = $5, response_body = $6::json, locked_until = null
      where ${KEY}`,
    [...keyParams(k), status, body],
  );
}

export async function release(db: Db, k: IdemKey): Promise<void> {
  await exec(db, `delete from idempotency_keys where ${KEY} and state = 'running'`, keyParams(k));
}
