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
  key: string;
}

/** Claims the key for a new request; false when a record already exists. */
export async function claim(db: Db, k: IdemKey, hash: string, lockSeconds: number): Promise<boolean> {
  const n = await exec(
    db,
    `insert into idempotency_keys (organization_id, mode, key, request_hash, state, locked_until)
     values ($1, $2, $3, $4, 'running', now() + make_interval(secs => $5))
     on conflict do nothing`,
    [k.organizationId, k.mode, k.key, hash, lockSeconds],
  );
  return n === 1;
}

export function find(db: Db, k: IdemKey): Promise<IdempotencyRow | undefined> {
  return one<IdempotencyRow>(
    db,
    `select request_hash, state, response_status, response_body,
            created_at < now() - interval '24 hours' as expired,
            coalesce(locked_until < now(), true) as lock_expired
       from idempotency_keys where organization_id = $1 and mode = $2 and key = $3`,
    [k.organizationId, k.mode, k.key],
  );
}

/** Takes over an expired record or an abandoned running one (its process died). */
export async function reclaim(db: Db, k: IdemKey, hash: string, lockSeconds: number): Promise<boolean> {
  const n = await exec(
    db,
    `update idempotency_keys set request_hash = $4, state = 'running', response_status = null,
            response_body = null, created_at = now(), locked_until = now() + make_interval(secs => $5)
      where organization_id = $1 and mode = $2 and key = $3
        and (created_at < now() - interval '24 hours' or (state = 'running' and locked_until < now()))`,
    [k.organizationId, k.mode, k.key, hash, lockSeconds],
  );
  return n === 1;
}

export async function complete(db: Db, k: IdemKey, status: number, body: unknown): Promise<void> {
  await exec(
    db,
    `update idempotency_keys set state = 'done', response_status = $4, response_body = $5, locked_until = null
      where organization_id = $1 and mode = $2 and key = $3`,
    [k.organizationId, k.mode, k.key, status, JSON.stringify(body)],
  );
}

export async function release(db: Db, k: IdemKey): Promise<void> {
  await exec(db, `delete from idempotency_keys where organization_id = $1 and mode = $2 and key = $3 and state = 'running'`, [
    k.organizationId,
    k.mode,
    k.key,
  ]);
}

export function purgeOlderThan24h(db: Db): Promise<number> {
  return exec(db, `delete from idempotency_keys where created_at < now() - interval '24 hours'`);
}
