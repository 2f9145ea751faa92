import type { Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import type { EventTypeValues } from '../../db/queries/event-types.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import { NotFound, PreconditionFailed } from '../errors.ts';
import { eventTypeDetailJson } from './present.ts';
import type { CustomFieldInput } from './rules.ts';
import { checkPeople, conflictOf, customFieldRows, freshSlug, newEventTypeId, requireTeam } from './rules.ts';
import type { EventTypeRow } from '../../db/schema.ts';

type Optional = Partial<Omit<EventTypeValues, 'team_id' | 'name' | 'duration' | 'workload'>> & { custom_fields?: CustomFieldInput[] };
export type CreateInput = Pick<EventTypeValues, 'team_id' | 'name' | 'duration' | 'workload'> & Optional;
export type UpdateInput = Partial<Pick<EventTypeValues, 'team_id' | 'name' | 'duration' | 'workload'>> & Optional;

async function mapConflicts<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw conflictOf(err) ?? err;
  }
}

/** POST /event-types: defaults from decisions.md §4 (SIMPLE, interval = duration, hosts = the team). */
export async function createEventType(pool: Pool, organizationId: string, input: CreateInput) {
  return mapConflicts(() =>
    transaction(pool, async (tx) => {
      await requireTeam(tx, organizationId, input.team_id);
      const values: EventTypeValues = {
        team_id: input.team_id,
        name: input.name,
        slug: input.slug ?? (await freshSlug(tx, organizationId, input.name)),
        description: input.description ?? null,
        duration: input.duration,
        slot_interval: input.slot_interval ?? input.duration,
        buffer_before: input.buffer_before ?? 0,
        buffer_after: input.buffer_after ?? 0,
        minimum_booking_notice: input.minimum_booking_notice ?? 0,
        scheduling_type: input.scheduling_type ?? 'SOLO',
        requires_confirmation: input.requires_confirmation ?? false,
        is_active: input.is_active ?? true,
        is_personal: input.is_personal ?? false,
        owner_id: input.owner_id ?? null,
        external_id: input.external_id ?? null,
        workload: input.workload,
        host_ids: input.host_ids ?? null,
      };
      await checkPeople(tx, organizationId, values);
      const id = newEventTypeId();
      const fields = customFieldRows(id, input.custom_fields ?? []);
      const row = await eventTypes.insert(tx, id, organizationId, values);
      await eventTypes.replaceCustomFields(tx, id, fields);
      return eventTypeDetailJson(row, await eventTypes.customFields(tx, id));
    }),
  );
}

function merge(current: EventTypeRow, patch: UpdateInput): EventTypeValues {
  const has = (k: keyof UpdateInput) => Object.hasOwn(patch, k) && patch[k] !== undefined;
  const pick = <K extends keyof EventTypeValues>(k: K): EventTypeValues[K] =>
    has(k as keyof UpdateInput) ? (patch as EventTypeValues)[k] : current[k];
  const duration = pick('duration');
  // An interval that was left at its default follows a new duration; one chosen on purpose stays.
  const intervalFollows = !has('slot_interval') && current.slot_interval === current.duration;
  return {
    team_id: pick('team_id'),
    name: pick('name'),
    slug: pick('slug'),
    description: pick('description'),
    duration,
    slot_interval: intervalFollows ? duration : pick('slot_interval'),
    buffer_before: pick('buffer_before'),
    buffer_after: pick('buffer_after'),
    minimum_booking_notice: pick('minimum_booking_notice'),
    scheduling_type: pick('scheduling_type'),
    requires_confirmation: pick('requires_confirmation'),
    is_active: pick('is_active'),
    is_personal: pick('is_personal'),
    owner_id: Object.hasOwn(patch, 'owner_id') ? (patch.owner_id ?? null) : current.owner_id,
    external_id: Object.hasOwn(patch, 'external_id') ? (patch.external_id ?? null) : current.external_id,
    workload: pick('workload'),
    host_ids: Object.hasOwn(patch, 'host_ids') ? (patch.host_ids ?? null) : current.host_ids,
  };
}

/** PATCH /event-types/{id}: any subset; existing bookings keep their times, a warning says so. */
export async function updateEventType(pool: Pool, organizationId: string, id: string, patch: UpdateInput, now: Date) {
  return mapConflicts(() =>
    transaction(pool, async (tx) => {
      const current = await eventTypes.lockLive(tx, organizationId, id);
      if (!current) throw new NotFound(`event type "${id}" not found`);
      const next = merge(current, patch);
      if (next.team_id !== current.team_id) await requireTeam(tx, organizationId, next.team_id);
      await checkPeople(tx, organizationId, next);
      const fields = patch.custom_fields ? customFieldRows(id, patch.custom_fields) : undefined;
      const warnings: string[] = [];
      const durationChanged = next.duration !== current.duration;
      const disabling = current.is_active && !next.is_active;
      if (durationChanged || disabling) {
        const counts = await eventTypes.activeBookings(tx, id, now);
        if (durationChanged && counts.future > 0) {
          warnings.push(
            `${counts.future} future booking(s) keep their original duration; the new duration of ${next.duration} minutes applies to new bookings only`,
          );
        }
        if (disabling && counts.active > 0) {
          warnings.push(`the event type is disabled but ${counts.active} active booking(s) remain scheduled and are unaffected`);
        }
      }
      const row = await eventTypes.update(tx, id, next);
      if (fields) await eventTypes.replaceCustomFields(tx, id, fields);
      return {
        event_type: eventTypeDetailJson(row, await eventTypes.customFields(tx, id)),
        warning: warnings.length ? warnings.join('; ') : null,
      };
    }),
  );
}

/** DELETE /event-types/{id}: a soft delete, refused while active bookings of the type exist. */
export async function deleteEventType(pool: Pool, organizationId: string, id: string, now: Date) {
  return transaction(pool, async (tx) => {
    const current = await eventTypes.lockLive(tx, organizationId, id);
    if (!current) throw new NotFound(`event type "${id}" not found`);
    const counts = await eventTypes.activeBookings(tx, id, now);
    if (counts.active > 0) {
      throw new PreconditionFailed(
        'precondition_failed',
        `event type "${id}" has ${counts.active} active booking(s); cancel or complete them before deleting it`,
      );
    }
    const deleted = await eventTypes.softDelete(tx, id);
    return { id: deleted.id, deleted_at: deleted.deleted_at.toISOString() };
  });
}
