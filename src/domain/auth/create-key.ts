import type { Db } from '../../db/pool.ts';
import { one } from '../../db/pool.ts';
import { announceConfigChange } from '../../db/config-changes.ts';
import { upsertKey } from '../../db/queries/api-keys.ts';
import { displayPrefix, generateKey, hashKey, newKeyId } from './keys.ts';
import type { KeyKind, Mode } from './scopes.ts';
import { PUBLISHABLE_SCOPES, isScope } from './scopes.ts';

export class KeyCreateError extends Error {}

export interface CreateKeyInput {
  organizationId?: string;
  name?: string;
  scopes?: string[];
  mode?: string;
  type?: string;
  allowedOrigins?: string[];
}

export interface CreatedKey {
  id: string;
  key: string;
  organizationId: string;
  kind: KeyKind;
  mode: Mode;
}

/** `booking-service keys create`: validates the options, stores the hash, returns the key once. */
export async function createKey(db: Db, input: CreateKeyInput): Promise<CreatedKey> {
  if (!input.organizationId) throw new KeyCreateError('--org: required (an organization id from your seed file)');
  if (!input.name) throw new KeyCreateError('--name: required');
  if (input.mode !== 'test' && input.mode !== 'live') throw new KeyCreateError(`--mode: must be test or live, got "${input.mode}"`);
  if (input.type !== 'secret' && input.type !== 'publishable')
    throw new KeyCreateError(`--type: must be secret or publishable, got "${input.type}"`);
  const kind: KeyKind = input.type;
  const scopes = input.scopes ?? [];
  if (scopes.length === 0) throw new KeyCreateError('--scopes: at least one scope is required');
  for (const s of scopes) {
    if (!isScope(s)) throw new KeyCreateError(`--scopes: unknown scope "${s}"`);
    if (kind === 'publishable' && !PUBLISHABLE_SCOPES.has(s)) throw new KeyCreateError(`--scopes: scope "${s}" is for secret keys only`);
  }
  for (const o of input.allowedOrigins ?? []) {
    let origin: string | undefined;
    try {
      origin = new URL(o).origin;
    } catch {
      origin = undefined;
    }
    if (origin !== o) throw new KeyCreateError(`--allowed-origins: not an origin (scheme://host[:port]): "${o}"`);
  }
  const org = await one(db, 'select 1 from organizations where id = $1', [input.organizationId]);
  if (!org) throw new KeyCreateError(`--org: unknown organization "${input.organizationId}"`);
  const key = generateKey(kind, input.mode);
  const id = newKeyId();
  await upsertKey(db, {
    id,
    organizationId: input.organizationId,
    name: input.name,
    hash: hashKey(key),
    prefix: displayPrefix(key),
    kind,
    mode: input.mode,
    scopes,
    allowedOrigins: input.allowedOrigins?.length ? input.allowedOrigins : null,
  });
  // running servers may have cached "no key allows this origin"
  await announceConfigChange(db);
  return { id, key, organizationId: input.organizationId, kind, mode: input.mode };
}
