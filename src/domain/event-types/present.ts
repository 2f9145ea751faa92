import type { CustomFieldRow, EventTypeRow } from '../../db/schema.ts';
import type { CustomFieldType } from './custom-field-types.ts';

export function customFieldJson(f: CustomFieldRow) {
  return {
    id: f.id,
    key: f.key,
    label: f.label,
    // written only through the API's and the seed's validation, which allow these types alone
    type: f.type as CustomFieldType,
    required: f.required,
    options: f.options ?? [],
    order: f.position,
  };
}

/** The event type as every endpoint shows it (list items omit custom_fields). */
export function eventTypeJson(t: EventTypeRow) {
  return {
    id: t.id,
    name: t.name,
    slug: t.slug,
    description: t.description,
    duration: t.duration,
    slot_interval: t.slot_interval,
    buffer_before: t.buffer_before,
    buffer_after: t.buffer_after,
    minimum_booking_notice: t.minimum_booking_notice,
    scheduling_type: t.scheduling_type,
    team_id: t.team_id,
    requires_confirmation: t.requires_confirmation,
    mode: t.mode,
    is_active: t.is_active,
    is_personal: t.is_personal,
    owner_id: t.owner_id,
    external_id: t.external_id,
    workload: t.workload,
    host_ids: t.host_ids,
    created_at: t.created_at.toISOString(),
    updated_at: t.updated_at.toISOString(),
  };
}

export function eventTypeDetailJson(t: EventTypeRow, fields: CustomFieldRow[]) {
  return { ...eventTypeJson(t), custom_fields: fields.map(customFieldJson) };
}
