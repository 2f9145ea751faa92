import type { Db } from '../pool.ts';
import { one, rows } from '../pool.ts';
import type { ApiKeyRow } from '../schema.ts';

/** What authentication reads of a key (not its hash). */
export type ApiKeyRecord = Pick<
  ApiKeyRow,
  'id' | 'organization_id' | 'name' | 'key_prefix' | 'kind' | 'mode' | 'scopes' | 'allowed_origins'
>;

const COLUMNS = 'id, organization_id, name, key_prefix, kind, mode, scopes, allowed_origins';

export function findActiveByHash(db: Db, hash: string): Promise<ApiKeyRecord | undefined> {
  return one<ApiKeyRecord>(db, `select ${COLUMNS} from api_keys where key_hash = $1 and revoked_at is null`, [hash]);
}

export interface NewApiKey {
  id: string;
  organizationId: string;
  name: string;
  hash: string;
  prefix: string;
  kind: ApiKeyRow['kind'];
  mode: ApiKeyRow['mode'];
  scopes: string[];
  allowedOrigins: string[] | null;
}

/** Inserts a key, or updates name, scopes and origins of the key with the same hash. */
export async function upsertKey(db: Db, k: NewApiKey): Promise<'inserted' | 'updated' | 'unchanged'> {
  const result = await one<{ inserted: boolean }>(
    db,
    `insert into api_keys (id, organization_id, name, key_hash, key_prefix, kind, mode, scopes, allowed_origins)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (key_hash) do update set name = excluded.name, scopes = excluded.scopes,
       allowed_origins = excluded.allowed_origins
     where api_keys.organization_id = excluded.organization_id
       and (api_keys.name, api_keys.scopes, api_keys.allowed_origins)
           is distinct from (excluded.name, excluded.scopes, excluded.allowed_origins)
     returning (xmax = 0) as inserted`,
    [k.id, k.organizationId, k.name, k.hash, k.prefix, k.kind, k.mode, k.scopes, k.allowedOrigins],
  );
  if (!result) return 'unchanged';
  return result.inserted ? 'inserted' : 'updated';
}

/**
 * May a browser at `origin` call with some active key: one that lists it, or a publishable key
 * without a list (usable from any origin). A secret key without a list does not count: secret
 * keys are for servers, which send no preflight.
 */
export async function isOriginAllowedAnywhere(db: Db, origin: string): Promise<boolean> {
  const found = await rows(
    db,
    `select 1 from api_keys
      where revoked_at is null and ($1 = any(allowed_origins) or (kind = 'publishable' and allowed_origins is null)) limit 1`,
    [origin],
  );
  return found.length > 0;
}
