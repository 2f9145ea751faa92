import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/pool.ts';
import * as apiKeys from '../../db/queries/api-keys.ts';
import type { KeyKind, Mode, Scope } from './scopes.ts';
import { expandScopes, parseKey } from './scopes.ts';

export interface AuthContext {
  keyId: string;
  organizationId: string;
  kind: KeyKind;
  mode: Mode;
  scopes: ReadonlySet<Scope>;
  allowedOrigins: readonly string[] | null;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The part of a key safe to show in lists and logs: its prefix and first characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, 12);
}

export function generateKey(kind: KeyKind, mode: Mode): string {
  return `${kind === 'publishable' ? 'pk' : 'sk'}_${mode}_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
}

export function newKeyId(): string {
  return `key_${randomBytes(10).toString('hex')}`;
}

// Keys are looked up on every request; a short cache keeps that off the database while a
// revoked or changed key still takes effect within seconds.
const CACHE_MS = 10_000;
const cache = new Map<string, { at: number; ctx: AuthContext | null }>();
/**
 * Bumped by clearKeyCache: a lookup that started before a clear may have read the old row, so
 * it answers its request but does not cache what it read.
 */
let generation = 0;

export async function authenticate(db: Db, rawKey: string, now = Date.now()): Promise<AuthContext | null> {
  const parsed = parseKey(rawKey);
  if (!parsed) return null;
  const hash = hashKey(rawKey);
  const hit = cache.get(hash);
  if (hit && now - hit.at < CACHE_MS) return hit.ctx;
  const started = generation;
  const row = await apiKeys.findActiveByHash(db, hash);
  const ctx: AuthContext | null =
    row && row.kind === parsed.kind && row.mode === parsed.mode
      ? {
          keyId: row.id,
          organizationId: row.organization_id,
          kind: row.kind,
          mode: row.mode,
          scopes: expandScopes(row.scopes),
          allowedOrigins: row.allowed_origins && row.allowed_origins.length > 0 ? row.allowed_origins : null,
        }
      : null;
  if (started !== generation) return ctx;
  if (cache.size > 10_000) cache.clear();
  cache.set(hash, { at: now, ctx });
  return ctx;
}

const origins = new Map<string, { at: number; allowed: boolean }>();

/**
 * May some active key be used from `origin` in a browser: one that lists it, or a publishable
 * key without a list (CORS preflights carry no key)? Cached like keys, answers "no" included:
 * preflights come without a key, so anyone can send them in any number.
 */
export async function isOriginAllowed(db: Db, origin: string, now = Date.now()): Promise<boolean> {
  const hit = origins.get(origin);
  if (hit && now - hit.at < CACHE_MS) return hit.allowed;
  const started = generation;
  const allowed = await apiKeys.isOriginAllowedAnywhere(db, origin);
  if (started !== generation) return allowed;
  if (origins.size > 10_000) origins.clear();
  origins.set(origin, { at: now, allowed });
  return allowed;
}

export function clearKeyCache(): void {
  generation++;
  cache.clear();
  origins.clear();
}
