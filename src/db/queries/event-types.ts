import type { Db } from '../pool.ts';
import { one, rows } from '../pool.ts';
import type { CustomFieldRow, EventTypeRow, MemberRow } from '../schema.ts';
import { hostsOfTypeSql } from './members.ts';

/** Active, not deleted, in the organization: what every read endpoint may show. */
export function findVisible(db: Db, organizationId: string, id: string): Promise<EventTypeRow | undefined> {
  return one<EventTypeRow>(db, `select * from event_types where id = $1 and organization_id = $2 and is_active and deleted_at is null`, [
    id,
    organizationId,
  ]);
}

type WithFields = EventTypeRow & { custom_fields: CustomFieldRow[] };

/** A visible event type `et` (findVisible's rule) with its custom fields in order, and `extra` columns. */
const visibleWithFields = (extra = '') =>
  `select et.*, coalesce((select json_agg(cf order by cf.position) from event_type_custom_fields cf where cf.event_type_id = et.id), '[]') as custom_fields${extra}
     from event_types et where et.id = $1 and et.organization_id = $2 and et.is_active and et.deleted_at is null`;

/** findVisible with its custom fields, in order, in one round trip. */
export function findVisibleWithFields(db: Db, organizationId: string, id: string): Promise<WithFields | undefined> {
  return one<WithFields>(db, visibleWithFields(), [id, organizationId]);
}

export type BookableEventType = WithFields & { hosts: HostSchedule[] };

/**
 * findVisibleWithFields and the schedules of the type's active hosts in host order (hostsOfType),
 * in one round trip: what a booking create reads before it looks at the slot. Only what the slot
 * check and the hold use: building whole member rows as JSON (with their team's name) cost
 * PostgreSQL twice as much at every create (0.21 against 0.11 ms) and sent 10.7 KB
 * instead of 4.4 KB for 20 hosts.
 */
export function findBookable(db: Db, organizationId: string, id: string): Promise<BookableEventType | undefined> {
  return one<BookableEventType>(db, visibleWithFields(`, (select ${SCHEDULES_AGG} from members m where ${HOSTS.where}) as hosts`), [
    id,
    organizationId,
  ]);
}

export function listVisible(db: Db, organizationId: string): Promise<EventTypeRow[]> {
  return rows<EventTypeRow>(db, `select * from event_types where organization_id = $1 and is_active and deleted_at is null`, [
    organizationId,
  ]);
}

export function customFields(db: Db, eventTypeId: string): Promise<CustomFieldRow[]> {
  return rows<CustomFieldRow>(db, `select * from event_type_custom_fields where event_type_id = $1 order by position`, [eventTypeId]);
}

/** The writable columns of an event type (everything but ids, organization, mode and timestamps). */
export type EventTypeValues = Omit<EventTypeRow, 'id' | 'organization_id' | 'mode' | 'created_at' | 'updated_at' | 'deleted_at'>;

const COLUMNS = [
  'team_id',
  'name',
  'slug',
  'description',
  'duration',
  'slot_interval',
  'buffer_before',
  'buffer_after',
  'minimum_booking_notice',
  'scheduling_type',
  'requires_confirmation',
  'is_active',
  'is_personal',
  'owner_id',
  'external_id',
  'workload',
  'host_ids',
] as const;

function params(v: EventTypeValues): unknown[] {
  return COLUMNS.map((c) => (c === 'workload' ? JSON.stringify(v.workload) : v[c]));
}

export async function insert(db: Db, id: string, organizationId: string, v: EventTypeValues): Promise<EventTypeRow> {
  const placeholders = COLUMNS.map((_, i) => `$${i + 3}`).join(', ');
  const row = await one<EventTypeRow>(
    db,
    `insert into event_types (id, organization_id, ${COLUMNS.join(', ')}) values ($1, $2, ${placeholders}) returning *`,
    [id, organizationId, ...params(v)],
  );
  return row!;
}

export async function update(db: Db, id: string, v: EventTypeValues): Promise<EventTypeRow> {
  const sets = COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ');
  const row = await one<EventTypeRow>(db, `update event_types set ${sets}, updated_at = now() where id = $1 returning *`, [
    id,
    ...params(v),
  ]);
  return row!;
}

/** The row locked for a change; undefined when deleted or in another organization. */
export function lockLive(db: Db, organizationId: string, id: string): Promise<EventTypeRow | undefined> {
  return one<EventTypeRow>(db, `select * from event_types where id = $1 and organization_id = $2 and deleted_at is null for update`, [
    id,
    organizationId,
  ]);
}

export async function softDelete(db: Db, id: string): Promise<{ id: string; deleted_at: Date }> {
  const row = await one<{ id: string; deleted_at: Date }>(
    db,
    `update event_types set deleted_at = now(), updated_at = now() where id = $1 returning id, deleted_at`,
    [id],
  );
  return row!;
}

/** Slugs in use in the organization that are `base` or `base-N`, for making a fresh one. */
export async function slugsLike(db: Db, organizationId: string, base: string): Promise<Set<string>> {
  const found = await rows<{ slug: string }>(
    db,
    `select slug from event_types where organization_id = $1 and deleted_at is null and (slug = $2 or slug like $3)`,
    [organizationId, base, `${base.replace(/[\\%_]/g, '\\$&')}-%`],
  );
  return new Set(found.map((r) => r.slug));
}

export interface NewCustomField {
  id: string;
  key: string;
  label: string;
  type: string;
  required: boolean;
  options: string[] | null;
}

/** Replaces an event type's custom fields with `fields`, in display order. */
export async function replaceCustomFields(db: Db, eventTypeId: string, fields: readonly NewCustomField[]): Promise<void> {
  await db.query('delete from event_type_custom_fields where event_type_id = $1', [eventTypeId]);
  for (const [position, f] of fields.entries()) {
    await db.query(
      `insert into event_type_custom_fields (id, event_type_id, key, label, type, required, options, position)
       values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [f.id, eventTypeId, f.key, f.label, f.type, f.required, f.options ? JSON.stringify(f.options) : null, position],
    );
  }
}

/** The team of an event type of the organization (deleted or not), if there is one. */
export async function teamOf(db: Db, organizationId: string, id: string): Promise<string | undefined> {
  return (
    await one<{ team_id: string }>(db, 'select team_id from event_types where id = $1 and organization_id = $2', [id, organizationId])
  )?.team_id;
}

export async function teamInOrganization(db: Db, organizationId: string, teamId: string): Promise<boolean> {
  const row = await one<{ id: string }>(db, 'select id from teams where id = $1 and organization_id = $2', [teamId, organizationId]);
  return row !== undefined;
}

/**
 * Active bookings of the type (DRAFT, SCHEDULED, PENDING_CONFIRMATION, RESCHEDULED) in both
 * modes, and how many of them start after `now`.
 */
export async function activeBookings(db: Db, eventTypeId: string, now: Date): Promise<{ active: number; future: number }> {
  const row = await one<{ active: number; future: number }>(
    db,
    `select count(*) as active, count(*) filter (where start_time > $2) as future
       from bookings where event_type_id = $1 and status in ('DRAFT', 'SCHEDULED', 'PENDING_CONFIRMATION', 'RESCHEDULED')`,
    [eventTypeId, now],
  );
  return row ?? { active: 0, future: 0 };
}

const HOSTS = hostsOfTypeSql('et.organization_id', 'et.team_id', 'et.host_ids');

/** What the slot engine needs of a host (members.ts rows carry more). */
export type HostSchedule = Pick<MemberRow, 'id' | 'timezone' | 'working_hours' | 'max_bookings_per_day'>;

/** Over the hosts `m` of an event type `et` (HOSTS.where): their HostSchedules in host order, as JSON. */
const SCHEDULES_AGG = `coalesce(json_agg(json_build_object('id', m.id, 'timezone', m.timezone, 'working_hours', m.working_hours,
                                                           'max_bookings_per_day', m.max_bookings_per_day)
                                         order by ${HOSTS.orderBy}), '[]')`;

/** What GET /availability reads of an event type at every request (findVisibleForAvailability). */
export type AvailabilityType = Pick<
  EventTypeRow,
  'id' | 'updated_at' | 'duration' | 'slot_interval' | 'buffer_before' | 'buffer_after' | 'minimum_booking_notice' | 'scheduling_type'
> & { schedule_version: string };

/** The same with its active hosts' schedules (findVisibleWithHosts). */
export type AvailabilityTypeWithHosts = AvailabilityType & { active_hosts: string };

/**
 * Only the columns an answer uses: the whole row (`et.*`, 24 columns with three timestamps, a
 * jsonb and an array to parse) was read on every request, cached or not; so was the hosts' ids
 * as a uuid[], whose parse (postgres-array joining each id character by character) was about
 * 1.5 % of the availability bench's server with every cache off.
 */
const AVAILABILITY_COLUMNS = `et.id, et.updated_at, et.duration, et.slot_interval, et.buffer_before, et.buffer_after, et.minimum_booking_notice,
            et.scheduling_type, (select o.schedule_version from organizations o where o.id = et.organization_id) as schedule_version`;

/**
 * A visible event type (findVisible's rule) as GET /availability needs it at every request,
 * without its hosts: what they are is fixed by the type's row (`updated_at`) and its
 * organization's `schedule_version`, which every change of members, their hours or teams bumps
 * (seed), so get-availability.ts keeps the hosts it read under those two and asks
 * findVisibleWithHosts only when either moved. Building the hosts' schedules into JSON was about
 * half of this read: 0.11–0.18 against 0.06 ms (pgbench, one client, the availability bench's 20
 * hosts, 2026-11-28).
 */
export function findVisibleForAvailability(db: Db, organizationId: string, id: string): Promise<AvailabilityType | undefined> {
  return one<AvailabilityType>(
    db,
    `select ${AVAILABILITY_COLUMNS}
       from event_types et
      where et.id = $1 and et.organization_id = $2 and et.is_active and et.deleted_at is null`,
    [id, organizationId],
  );
}

/**
 * findVisibleForAvailability's event type with its active hosts in host order (hostsOfTypeSql),
 * in one round trip: their schedules as JSON text (`active_hosts`, which get-availability.ts
 * parses and takes the hosts' ids from, for a cached answer's key as for computing one), read
 * when the hosts it keeps are not those of the type's `updated_at` and `schedule_version`.
 */
export function findVisibleWithHosts(db: Db, organizationId: string, id: string): Promise<AvailabilityTypeWithHosts | undefined> {
  return one<AvailabilityTypeWithHosts>(
    db,
    `select ${AVAILABILITY_COLUMNS}, h.schedules as active_hosts
       from event_types et
       cross join lateral (select ${SCHEDULES_AGG}::text as schedules from members m where ${HOSTS.where}) h
      where et.id = $1 and et.organization_id = $2 and et.is_active and et.deleted_at is null`,
    [id, organizationId],
  );
}
