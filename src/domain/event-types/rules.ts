import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/pool.ts';
import type { EventTypeValues, NewCustomField } from '../../db/queries/event-types.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import * as members from '../../db/queries/members.ts';
import { customFieldId } from '../../db/queries/seed-upserts.ts';
import { Conflict, Forbidden, ValidationError } from '../errors.ts';
import { slugify } from './limits.ts';

export function newEventTypeId(): string {
  return `et_${randomBytes(10).toString('hex')}`;
}

/** decisions.md §3: a team outside the organization is 403 on create and update (the one exception to 404). */
export async function requireTeam(db: Db, organizationId: string, teamId: string): Promise<void> {
  if (!(await eventTypes.teamInOrganization(db, organizationId, teamId))) {
    throw new Forbidden(`field "team_id": team "${teamId}" is not in this organization`);
  }
}

/**
 * Hosts and owner must be members of the type's team (another organization's member is refused
 * like an unknown id); hosts must also be active, since inactive members never take bookings.
 */
export async function checkPeople(db: Db, organizationId: string, v: EventTypeValues): Promise<void> {
  if (v.host_ids !== null) {
    const found = await members.activeByIds(db, organizationId, v.host_ids);
    const ok = new Set(found.filter((m) => m.team_id === v.team_id).map((m) => m.id));
    const bad = v.host_ids.findIndex((id) => !ok.has(id));
    if (bad >= 0) {
      throw new ValidationError(
        `field "host_ids[${bad}]": "${v.host_ids[bad]}" is not an active member of team "${v.team_id}"`,
        `host_ids[${bad}]`,
      );
    }
  }
  if (v.is_personal && v.owner_id === null) throw new ValidationError('field "owner_id" is required when is_personal is true', 'owner_id');
  if (v.owner_id !== null) {
    const owner = await members.findInOrganization(db, organizationId, v.owner_id);
    if (!owner || owner.team_id !== v.team_id) {
      throw new ValidationError(`field "owner_id": "${v.owner_id}" is not a member of team "${v.team_id}"`, 'owner_id');
    }
  }
}

/** A slug made from the name, suffixed -2, -3, ... past the ones in use. */
export async function freshSlug(db: Db, organizationId: string, name: string): Promise<string> {
  const base = slugify(name);
  const taken = await eventTypes.slugsLike(db, organizationId, base);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

export interface CustomFieldInput {
  key: string;
  label: string;
  type: string;
  required?: boolean;
  options?: string[] | null;
}

export function customFieldRows(eventTypeId: string, input: readonly CustomFieldInput[]): NewCustomField[] {
  const seen = new Set<string>();
  return input.map((f, i) => {
    if (seen.has(f.key)) throw new ValidationError(`field "custom_fields[${i}].key": duplicate key "${f.key}"`, `custom_fields[${i}].key`);
    seen.add(f.key);
    const choice = f.type === 'SELECT' || f.type === 'MULTISELECT';
    const options = choice ? (f.options ?? []) : null;
    if (choice && options!.length === 0) {
      throw new ValidationError(`field "custom_fields[${i}].options" is required for ${f.type}`, `custom_fields[${i}].options`);
    }
    if (options && new Set(options).size !== options.length) {
      throw new ValidationError(`field "custom_fields[${i}].options" must not repeat a value`, `custom_fields[${i}].options`);
    }
    return { id: customFieldId(eventTypeId, f.key), key: f.key, label: f.label, type: f.type, required: f.required ?? false, options };
  });
}

/** Unique-index violations of event_types, told apart by constraint name, never by message text. */
export function conflictOf(err: unknown): Conflict | undefined {
  const e = err as { code?: string; constraint?: string } | null;
  if (e?.code !== '23505') return undefined;
  if (e.constraint === 'event_types_slug') return new Conflict('an event type with this slug already exists');
  if (e.constraint === 'event_types_external_id') return new Conflict('an event type with this external_id already exists');
  return undefined;
}
