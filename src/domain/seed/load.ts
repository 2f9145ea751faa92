import fs from 'node:fs';
import type { Pool, Tx } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import { announceBusyChange } from '../../db/busy-changes.ts';
import { announceConfigChange } from '../../db/config-changes.ts';
import { upsertKey } from '../../db/queries/api-keys.ts';
import * as up from '../../db/queries/seed-upserts.ts';
import { displayPrefix, hashKey, newKeyId } from '../auth/keys.ts';
import { parseKey } from '../auth/scopes.ts';
import { dropConnections, rehomeBusy } from '../../db/queries/calendar-sync.ts';
import { saveConnection } from '../calendars/connect.ts';
import { enqueueSync } from '../calendars/schedule.ts';
import type { SeedFile } from './validate.ts';
import { SeedError, validateSeed } from './validate.ts';

export interface SeedResult {
  changes: number;
  file: SeedFile;
}

export function readSeedFile(file: string): SeedFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SeedError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new SeedError(`$: not valid JSON (${(err as Error).message})`);
  }
  return validateSeed(raw);
}

export interface SeedOptions {
  /** WEBHOOK_SECRET_KEY: encrypts calendar connection passwords; needed when the file connects calendars. */
  secretKey?: Buffer;
}

/**
 * Loads a validated seed file in one transaction: all of it or nothing. Rows are matched by
 * id (keys by their hash) and only rows whose values differ are written. A calendar connection
 * that is new or changed enqueues that calendar's sync in the same transaction.
 */
export async function loadSeed(pool: Pool, seed: SeedFile, opts: SeedOptions = {}): Promise<SeedResult> {
  const changes = await transaction(pool, async (tx) => {
    let n = 0;
    for (const [oi, org] of seed.organizations.entries()) {
      const p = `organizations[${oi}]`;
      await refuseForeignRows(tx, p, org);
      const before = n;
      n += await up.upsertOrganization(tx, org);
      for (const [i, team] of org.teams.entries()) n += await named(`${p}.teams[${i}]`, () => up.upsertTeam(tx, org.id, team));
      const changedMembers: string[] = [];
      for (const [i, member] of org.members.entries()) {
        const changed = await named(`${p}.members[${i}]`, () => up.upsertMember(tx, org.id, member));
        if (changed > 0) changedMembers.push(member.id.toLowerCase()); // as PostgreSQL writes a uuid, and the caches key it
        n += changed;
      }
      // their hours, zone, out-of-office or being active changed: every process drops the
      // free/busy answers it keeps of them (availability's answers follow schedule_version)
      await announceBusyChange(tx, changedMembers);
      for (const [i, type] of org.event_types.entries()) {
        n += await named(`${p}.event_types[${i}]`, () => up.upsertEventType(tx, org.id, type));
      }
      for (const [ci, cal] of org.calendars.entries()) {
        n += await named(`${p}.calendars[${ci}]`, () => up.upsertCalendar(tx, org.id, cal));
        if (cal.connection) {
          if (!opts.secretKey) throw new SeedError(`${p}.calendars[${ci}].connection: no key to encrypt the password with`);
          if (await saveConnection(tx, cal.id, cal.connection, opts.secretKey)) n += 1;
        }
      }
      const dropped = await dropConnections(
        tx,
        org.calendars.filter((c) => !c.connection).map((c) => c.id),
      );
      n += dropped.dropped;
      // their busy blocks went with them (cascade): every process drops what it cached of them
      await announceBusyChange(tx, dropped.memberIds);
      for (const k of org.api_keys) {
        const parsed = parseKey(k.key)!;
        const outcome = await upsertKey(tx, {
          id: newKeyId(),
          organizationId: org.id,
          name: k.name,
          hash: hashKey(k.key),
          prefix: displayPrefix(k.key),
          kind: parsed.kind,
          mode: parsed.mode,
          scopes: k.scopes,
          allowedOrigins: k.allowed_origins,
        });
        if (outcome !== 'unchanged') n += 1;
      }
      if (n > before) await up.bumpScheduleVersion(tx, org.id);
    }
    // A calendar moved to another member, or whose member's zone changed: its busy time follows
    // its owner now, and a sync expands it again in the owner's zone.
    const rehomed = await rehomeBusy(
      tx,
      seed.organizations.map((o) => o.id),
    );
    for (const id of rehomed.calendarIds) await enqueueSync(tx, id);
    await announceBusyChange(tx, rehomed.memberIds);
    if (n > 0) await announceConfigChange(tx);
    return n;
  });
  return { changes, file: seed };
}

/**
 * A row's write, with a unique value the database already holds in another row (an event type's
 * slug or external_id made through the API, say) refused as a SeedError naming the value's path
 * (decisions §2), instead of PostgreSQL's message. The transaction is then rolled back whole.
 */
async function named(path: string, write: () => Promise<number>): Promise<number> {
  try {
    return await write();
  } catch (err) {
    const e = err as { code?: string; detail?: string };
    const key = e.code === '23505' ? /^Key \((?:.*, )?([a-z_]+)\)=\((?:.*, )?(.*)\) already exists/.exec(e.detail ?? '') : null;
    if (!key) throw err;
    throw new SeedError(`${path}.${key[1]}: "${key[2]}" is already used by another row in the database`);
  }
}

/**
 * Seeding updates by id, within one organization: a row (or an API key) of another
 * organization is never moved, since that would hand it, and what it sees, to this one.
 * The message names the bad value's path (decisions §2); a key's secret is never echoed.
 */
async function refuseForeignRows(tx: Tx, p: string, org: SeedFile['organizations'][number]): Promise<void> {
  const lists = [
    ['teams', org.teams.map((t) => t.id)],
    ['members', org.members.map((m) => m.id)],
    ['event_types', org.event_types.map((e) => e.id)],
    ['calendars', org.calendars.map((c) => c.id)],
  ] as const;
  for (const [table, ids] of lists) {
    const clash = (await up.foreignIds(tx, table, org.id, [...ids]))[0];
    if (clash !== undefined) {
      throw new SeedError(`${p}.${table}[${ids.indexOf(clash)}].id: "${clash}" already belongs to another organization`);
    }
  }
  const hashes = org.api_keys.map((k) => hashKey(k.key));
  const taken = (await up.foreignKeyHashes(tx, org.id, hashes))[0];
  if (taken !== undefined) {
    throw new SeedError(`${p}.api_keys[${hashes.indexOf(taken)}].key: this key already belongs to another organization`);
  }
}

export function isEmpty(pool: Pool): Promise<boolean> {
  return up.noOrganizations(pool);
}

/** Which of these organizations the database holds. */
export async function organizationsPresent(pool: Pool, ids: string[]): Promise<Set<string>> {
  return new Set(await up.existingOrganizations(pool, ids));
}
