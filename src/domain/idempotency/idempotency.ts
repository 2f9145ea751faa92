import { createHash } from 'node:crypto';
import type { Db } from '../../db/pool.ts';
import * as store from '../../db/queries/idempotency-keys.ts';
import type { IdemKey } from '../../db/queries/idempotency-keys.ts';
import { isRawJson } from '../../lib/exact-json.ts';
import { Conflict, PreconditionFailed, ValidationError } from '../errors.ts';

export type { IdemKey };

/** How long a running request holds its key before a retry may assume it died. */
const LOCK_SECONDS = 60;
export const MAX_KEY_LENGTH = 255;

function canonical(value: unknown): string {
  // a metadata number kept as written (src/lib/exact-json.ts): its literal, as JSON.stringify writes it
  if (isRawJson(value)) return value.rawJSON;
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The fingerprint of a request: the same key may only be replayed with the same request. */
export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonical(body)}`)
    .digest('hex');
}

export function validateKey(key: string): void {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new ValidationError(`header "Idempotency-Key" must be 1 to ${MAX_KEY_LENGTH} characters`, 'Idempotency-Key');
  }
}

export type Begin = { kind: 'proceed' } | { kind: 'replay'; status: number; body: unknown };

/**
 * IETF Idempotency-Key draft: a new key proceeds; a finished one replays its response; the
 * same key with another request is 422; a key whose first request is still running is 409.
 */
export async function begin(db: Db, k: IdemKey, hash: string): Promise<Begin> {
  for (let tries = 0; tries < 3; tries++) {
    if (await store.claim(db, k, hash, LOCK_SECONDS)) return { kind: 'proceed' };
    const { own, elsewhere } = await store.findForRequest(db, k, hash);
    // the same request filed under another team (store.claim says why it is this request)
    if (elsewhere?.state === 'done') return { kind: 'replay', status: elsewhere.response_status ?? 200, body: elsewhere.response_body };
    if (elsewhere && !elsewhere.lock_expired) throw new Conflict('a request with this Idempotency-Key is still being processed');
    if (!own) continue; // released between our insert and select: try again
    if (own.expired || (own.state === 'running' && own.lock_expired)) {
      if (await store.reclaim(db, k, hash, LOCK_SECONDS)) return { kind: 'proceed' };
      continue;
    }
    if (own.request_hash !== hash) {
      throw new PreconditionFailed('idempotency_key_reused', 'this Idempotency-Key was used with a different request');
    }
    if (own.state === 'running') throw new Conflict('a request with this Idempotency-Key is still being processed');
    return { kind: 'replay', status: own.response_status ?? 200, body: own.response_body };
  }
  throw new Conflict('a request with this Idempotency-Key is still being processed');
}

/**
 * Only successful responses become the key's result; a failure frees the key for a retry. `body`
 * is the response's JSON text as sent (null when it was not JSON), replayed in the same key order.
 */
export async function finish(db: Db, k: IdemKey, status: number, body: string | null): Promise<void> {
  if (status >= 200 && status < 300) await store.complete(db, k, status, body);
  else await store.release(db, k);
}

/** The replayed body says it is a replay, at the top level and on the resource it wraps. */
export function markReplay(body: unknown): unknown {
  if (!body || typeof body !== 'object') return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>), idempotent_replay: true };
  for (const [k, v] of Object.entries(out)) {
    if (k !== 'pagination' && v && typeof v === 'object' && !Array.isArray(v) && 'id' in v) {
      out[k] = { ...(v as Record<string, unknown>), idempotent_replay: true };
    }
  }
  return out;
}
