import { createHash } from 'node:crypto';
import type { Db, Tx } from '../pool.ts';
import { exec, one, rows } from '../pool.ts';
import type { SeedCalendar, SeedEventType, SeedMember, SeedOrganization } from '../../domain/seed/validate.ts';

/**
 * Upserts by id that touch a row only when a value differs, so seeding the same file twice
 * changes nothing. Each returns the number of rows inserted or changed.
 */

export function upsertOrganization(tx: Tx, o: SeedOrganization): Promise<number> {
  return exec(
    tx,
    `insert into organizations (id, name, cancellation_enabled, cancellation_cutoff_minutes) values ($1, $2, $3, $4)
     on conflict (id) do update set name = excluded.name, cancellation_enabled = excluded.cancellation_enabled,
       cancellation_cutoff_minutes = excluded.cancellation_cutoff_minutes, updated_at = now()
     where (organizations.name, organizations.cancellation_enabled, organizations.cancellation_cutoff_minutes)
       is distinct from (excluded.name, excluded.cancellation_enabled, excluded.cancellation_cutoff_minutes)`,
    [o.id, o.name, o.cancellation_policy.enabled, o.cancellation_policy.cutoff_minutes],
  );
}

export async function upsertTeam(tx: Tx, orgId: string, t: { id: string; name: string }): Promise<number> {
  return exec(
    tx,
    `insert into teams (id, organization_id, name) values ($1, $2, $3)
     on conflict (id) do update set name = excluded.name, updated_at = now()
     where teams.name is distinct from excluded.name`,
    [t.id, orgId, t.name],
  );
}

export async function upsertMember(tx: Tx, orgId: string, m: SeedMember): Promise<number> {
  const changed = await exec(
    tx,
    `insert into members (id, organization_id, team_id, name, email, avatar_url, role, skills, is_active, timezone,
                          max_bookings_per_day, working_hours)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     on conflict (id) do update set team_id = excluded.team_id, name = excluded.name, email = excluded.email,
       avatar_url = excluded.avatar_url, role = excluded.role, skills = excluded.skills, is_active = excluded.is_active,
       timezone = excluded.timezone, max_bookings_per_day = excluded.max_bookings_per_day,
       working_hours = excluded.working_hours, updated_at = now()
     where members.organization_id = excluded.organization_id
       and (members.team_id, members.name, members.email, members.avatar_url, members.role, members.skills,
            members.is_active, members.timezone, members.max_bookings_per_day, members.working_hours)
       is distinct from (excluded.team_id, excluded.name, excluded.email, excluded.avatar_url, excluded.role,
            excluded.skills, excluded.is_active, excluded.timezone, excluded.max_bookings_per_day, excluded.working_hours)`,
    [
      m.id,
      orgId,
      m.team_id,
      m.name,
      m.email,
      m.avatar_url,
      m.role,
      m.skills,
      m.is_active,
      m.timezone,
      m.max_bookings_per_day,
      JSON.stringify(m.working_hours),
    ],
  );
  const current = await rows<{ s: string; e: string; r: string | null }>(
    tx,
    `select to_char(start_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') s,
            to_char(end_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') e, reason r
       from out_of_office where member_id = $1 order by start_time, end_time`,
    [m.id],
  );
  const wanted = m.out_of_office
    .map((b) => ({ s: new Date(b.start).toISOString().slice(0, 19), e: new Date(b.end).toISOString().slice(0, 19), r: b.reason }))
    .sort((a, b) => (a.s + a.e < b.s + b.e ? -1 : 1));
  if (JSON.stringify(current) === JSON.stringify(wanted)) return changed;
  await exec(tx, 'delete from out_of_office where member_id = $1', [m.id]);
  for (const b of m.out_of_office) {
    await exec(tx, 'insert into out_of_office (member_id, start_time, end_time, reason) values ($1, $2, $3, $4)', [
      m.id,
      b.start,
      b.end,
      b.reason,
    ]);
  }
  return changed + 1;
}

export function customFieldId(eventTypeId: string, key: string): string {
  return `cf_${createHash('sha256').update(`${eventTypeId}\n${key}`).digest('hex').slice(0, 20)}`;
}

export async function upsertEventType(tx: Tx, orgId: string, e: SeedEventType): Promise<number> {
  let changed = await exec(
    tx,
    `insert into event_types (id, organization_id, team_id, name, slug, description, duration, slot_interval,
        buffer_before, buffer_after, minimum_booking_notice, scheduling_type, requires_confirmation, is_active,
        is_personal, owner_id, external_id, workload, host_ids)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
     on conflict (id) do update set team_id = excluded.team_id, name = excluded.name, slug = excluded.slug,
       description = excluded.description, duration = excluded.duration, slot_interval = excluded.slot_interval,
       buffer_before = excluded.buffer_before, buffer_after = excluded.buffer_after,
       minimum_booking_notice = excluded.minimum_booking_notice, scheduling_type = excluded.scheduling_type,
       requires_confirmation = excluded.requires_confirmation, is_active = excluded.is_active,
       is_personal = excluded.is_personal, owner_id = excluded.owner_id, external_id = excluded.external_id,
       workload = excluded.workload, host_ids = excluded.host_ids, deleted_at = null, updated_at = now()
     where event_types.organization_id = excluded.organization_id
       and (event_types.team_id, event_types.name, event_types.slug, event_types.description, event_types.duration,
            event_types.slot_interval, event_types.buffer_before, event_types.buffer_after,
            event_types.minimum_booking_notice, event_types.scheduling_type, event_types.requires_confirmation,
            event_types.is_active, event_types.is_personal, event_types.owner_id, event_types.external_id,
            event_types.workload, event_types.host_ids, event_types.deleted_at)
       is distinct from (excluded.team_id, excluded.name, excluded.slug, excluded.description, excluded.duration,
            excluded.slot_interval, excluded.buffer_before, excluded.buffer_after, excluded.minimum_booking_notice,
            excluded.scheduling_type, excluded.requires_confirmation, excluded.is_active, excluded.is_personal,
            excluded.owner_id, excluded.external_id, excluded.workload, excluded.host_ids, null::timestamptz)`,
    [
      e.id,
      orgId,
      e.team_id,
      e.name,
      e.slug,
      e.description,
      e.duration,
      e.slot_interval,
      e.buffer_before,
      e.buffer_after,
      e.minimum_booking_notice,
      e.scheduling_type,
      e.requires_confirmation,
      e.is_active,
      e.is_personal,
      e.owner_id,
      e.external_id,
      JSON.stringify(e.workload),
      e.host_ids,
    ],
  );
  const ids: string[] = [];
  for (const [position, f] of e.custom_fields.entries()) {
    const id = customFieldId(e.id, f.key);
    ids.push(id);
    changed += await exec(
      tx,
      `insert into event_type_custom_fields (id, event_type_id, key, label, type, required, options, position)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (id) do update set label = excluded.label, type = excluded.type, required = excluded.required,
         options = excluded.options, position = excluded.position
       where (event_type_custom_fields.label, event_type_custom_fields.type, event_type_custom_fields.required,
              event_type_custom_fields.options, event_type_custom_fields.position)
         is distinct from (excluded.label, excluded.type, excluded.required, excluded.options, excluded.position)`,
      [id, e.id, f.key, f.label, f.type, f.required, f.options ? JSON.stringify(f.options) : null, position],
    );
  }
  changed += await exec(tx, 'delete from event_type_custom_fields where event_type_id = $1 and not (id = any($2))', [e.id, ids]);
  return changed;
}

/**
 * A calendar as the file has it. createdAt and updatedAt, when the file gives them, are stored
 * as given (GET /calendars orders by creation date); otherwise created_at is when seed first
 * wrote the row and updated_at when it last changed it (a NULL updated_at is made created_at by
 * the insert trigger, src/db/functions/calendars_updated_at_on_insert.sql).
 */
export function upsertCalendar(tx: Tx, orgId: string, c: SeedCalendar): Promise<number> {
  // A connected calendar's syncStatus and lastSyncAt belong to its syncs: the file gives them
  // only for a new row, so seeding the same file again changes nothing.
  return exec(
    tx,
    `insert into calendars (id, organization_id, user_id, team_id, provider, calendar_id, calendar_name, provider_email,
        timezone, is_primary, sync_status, last_sync_at, supports_webhooks, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
             coalesce($14::timestamptz, clock_timestamp()), coalesce($15::timestamptz, $14::timestamptz))
     on conflict (id) do update set user_id = excluded.user_id, team_id = excluded.team_id, provider = excluded.provider,
       calendar_id = excluded.calendar_id, calendar_name = excluded.calendar_name,
       provider_email = excluded.provider_email, timezone = excluded.timezone, is_primary = excluded.is_primary,
       sync_status = case when $16 then calendars.sync_status else excluded.sync_status end,
       last_sync_at = case when $16 then calendars.last_sync_at else excluded.last_sync_at end,
       supports_webhooks = excluded.supports_webhooks,
       created_at = coalesce($14::timestamptz, calendars.created_at), updated_at = coalesce($15::timestamptz, clock_timestamp())
     where calendars.organization_id = excluded.organization_id
       and ((calendars.user_id, calendars.team_id, calendars.provider, calendars.calendar_id, calendars.calendar_name,
             calendars.provider_email, calendars.timezone, calendars.is_primary, calendars.supports_webhooks)
            is distinct from (excluded.user_id, excluded.team_id, excluded.provider, excluded.calendar_id,
             excluded.calendar_name, excluded.provider_email, excluded.timezone, excluded.is_primary, excluded.supports_webhooks)
         or (not $16 and (calendars.sync_status, calendars.last_sync_at) is distinct from (excluded.sync_status, excluded.last_sync_at))
         or ($14::timestamptz is not null and calendars.created_at <> $14::timestamptz)
         or ($15::timestamptz is not null and calendars.updated_at <> $15::timestamptz))`,
    [
      c.id,
      orgId,
      c.userId,
      c.teamId,
      c.provider,
      c.calendarId,
      c.calendarName,
      c.providerEmail,
      c.timezone,
      c.isPrimary,
      c.syncStatus,
      c.lastSyncAt,
      c.supportsWebhooks,
      c.createdAt,
      c.updatedAt,
      c.connection !== null,
    ],
  );
}

/** Ids that exist already under another organization: seeding must not move them. */
export async function foreignIds(
  tx: Tx,
  table: 'teams' | 'members' | 'event_types' | 'calendars',
  orgId: string,
  ids: string[],
): Promise<string[]> {
  const found = await rows<{ id: string }>(tx, `select id::text from ${table} where id::text = any($1) and organization_id <> $2`, [
    ids,
    orgId,
  ]);
  return found.map((r) => r.id);
}

export async function noOrganizations(db: Db): Promise<boolean> {
  return (await one<{ empty: boolean }>(db, 'select not exists (select 1 from organizations) as empty'))?.empty ?? true;
}

export async function existingOrganizations(db: Db, ids: string[]): Promise<string[]> {
  return (await rows<{ id: string }>(db, 'select id from organizations where id = any($1)', [ids])).map((r) => r.id);
}

/** Hashes of API keys that exist already under another organization. */
export async function foreignKeyHashes(tx: Tx, orgId: string, hashes: string[]): Promise<string[]> {
  const found = await rows<{ key_hash: string }>(tx, 'select key_hash from api_keys where key_hash = any($1) and organization_id <> $2', [
    hashes,
    orgId,
  ]);
  return found.map((r) => r.key_hash);
}

/** Marks the organization's configuration as changed (organizations.schedule_version, src/db/schema.sql). */
export async function bumpScheduleVersion(tx: Tx, organizationId: string): Promise<void> {
  await exec(tx, 'update organizations set schedule_version = schedule_version + 1 where id = $1', [organizationId]);
}
