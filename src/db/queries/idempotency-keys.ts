import type { Db } from '../pool.ts';
import { exec, one } from '../pool.ts';

export interface IdempotencyRow {
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: unknown;
  expired: boolean;
  lock_expired: boolean;
}

export interface IdemKey {
  organizationId: string;
  mode: string;
  /** The team the request acts on; '' for requests about no one team (migration 068). */
  teamId: string;
  key: string;
}

const KEY = 'organization_id = $1 and mode = $2 and team_id = $3 and key = $4';
const ROW = `request_hash, state, response_status, response_body,
             created_at < now() - interval '24 hours' as expired,
             coalesce(locked_until < now(), true) as lock_expired`;
const keyParams = (k: IdemKey) => [k.organizationId, k.mode, k.teamId, k.key];

/** Claims the key for a new request; false when a record already exists. */
export async function claim(db: Db, k: IdemKey, hash: string, lockSeconds: number): Promise<boolean> {
  const n = await exec(
    db,
    `insert into idempotency_keys (organization_id, mode, team_id, key, request_hash, state, locked_until)
     values ($1, $2, $3, $4, $5, 'running', now() + make_interval(secs => $6))
     on conflict do nothing`,
    [...keyParams(k), hash, lockSeconds],
  );
  return n === 1;
}

export function find(db: Db, k: IdemKey): Promise<IdempotencyRow | undefined> {
  return one<IdempotencyRow>(
    db,
    `select ${ROW} from idempotency_keys where ${KEY}`,
    keyParams(k),
  );
}

/** A live record of the same request (same fingerprint) under this key in another team. */
export function findSameRequestElsewhere(db: Db, k: IdemKey, hash: string): Promise<IdempotencyRow | undefined> {
  return one<IdempotencyRow>(
    db,
    `select ${ROW}
       from idempotency_keys
      where organization_id = $1 and mode = $2 and key = $3 and team_id <> $4 and request_hash = $5
        and created_at >= now() - interval '24 hours'
      order by created_at desc limit 1`,
    [k.organizationId, k.mode, k.key, k.teamId, hash],
  );
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

export async function complete(db: Db, k: IdemKey, status: number, body: unknown): Promise<void> {
  await exec(
    db,
    `update idempotency_keys set state = 'done', response_status = $5, response_body = $6, locked_until = null
      where ${KEY}`,
    [...keyParams(k), status, JSON.stringify(body)],
  );
}

export async function release(db: Db, k: IdemKey): Promise<void> {
  await exec(db, `delete from idempotency_keys where ${KEY} and state = 'running'`, keyParams(k));
}

export function purgeOlderThan24h(db: Db): Promise<number> {
  return exec(db, `delete from idempotency_keys where created_at < now() - interval '24 hours'`);
}
