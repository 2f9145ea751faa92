import { Type } from 'typebox';
import { CUSTOM_FIELD_TYPES } from '../../domain/event-types/custom-field-types.ts';
import { CUSTOM_FIELD_KEY_PATTERN, EVENT_TYPE_LIMITS as L, SLUG_PATTERN } from '../../domain/event-types/limits.ts';
import { DateTime, Nullable } from './common.ts';

export const SchedulingType = Type.Union([Type.Literal('SOLO'), Type.Literal('ROUND_ROBIN'), Type.Literal('COLLECTIVE')]);

export const Workload = Type.Object({
  prep: Type.Integer({ minimum: 0 }),
  meeting: Type.Integer({ minimum: 1 }),
  implementation: Type.Integer({ minimum: 0 }),
  admin: Type.Integer({ minimum: 0 }),
});

export const CustomField = Type.Object({
  id: Type.String(),
  key: Type.String(),
  label: Type.String(),
  type: Type.String(),
  required: Type.Boolean(),
  options: Type.Array(Type.String()),
  order: Type.Integer(),
});

export const EventType = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  description: Nullable(Type.String()),
  duration: Type.Integer({ description: 'minutes' }),
  slot_interval: Type.Integer({ description: 'minutes; defaults to duration' }),
  buffer_before: Type.Integer({ description: 'minutes' }),
  buffer_after: Type.Integer({ description: 'minutes' }),
  minimum_booking_notice: Type.Integer({ description: 'minutes' }),
  scheduling_type: SchedulingType,
  team_id: Type.String(),
  requires_confirmation: Type.Boolean(),
  mode: Type.String(),
  is_active: Type.Boolean(),
  is_personal: Type.Boolean(),
  owner_id: Nullable(Type.String()),
  external_id: Nullable(Type.String()),
  workload: Workload,
  host_ids: Nullable(Type.Array(Type.String())),
  created_at: DateTime,
  updated_at: DateTime,
});

export const EventTypeDetail = Type.Object({ ...EventType.properties, custom_fields: Type.Array(CustomField) });

const minutes = (bounds: { minimum: number; maximum: number }, description: string) =>
  Type.Integer({ ...bounds, description: `minutes, ${bounds.minimum}..${bounds.maximum}; ${description}` });

export const WorkloadInput = Type.Object({
  prep: Type.Integer({ minimum: 0, maximum: L.workload.maximum }),
  meeting: Type.Integer({ minimum: 1, maximum: L.workload.maximum }),
  implementation: Type.Integer({ minimum: 0, maximum: L.workload.maximum }),
  admin: Type.Integer({ minimum: 0, maximum: L.workload.maximum }),
});

export const CustomFieldInput = Type.Object({
  key: Type.String({ minLength: 1, maxLength: L.customFieldKeyLength, pattern: CUSTOM_FIELD_KEY_PATTERN }),
  label: Type.String({ minLength: 1, maxLength: L.customFieldLabelLength }),
  type: Type.Union(CUSTOM_FIELD_TYPES.map((t) => Type.Literal(t))),
  required: Type.Optional(Type.Boolean({ default: false })),
  options: Type.Optional(
    Nullable(Type.Array(Type.String({ minLength: 1, maxLength: L.customFieldOptionLength }), { maxItems: L.customFieldOptions, description: 'SELECT and MULTISELECT only' })),
  ),
});

const optionalFields = {
  slug: Type.Optional(Type.String({ minLength: 1, maxLength: L.slugLength, pattern: SLUG_PATTERN, description: 'default: made from name' })),
  description: Type.Optional(Nullable(Type.String({ maxLength: L.descriptionLength }))),
  slot_interval: Type.Optional(minutes(L.slot_interval, 'default: duration')),
  buffer_before: Type.Optional(minutes(L.buffer_before, 'default 0')),
  buffer_after: Type.Optional(minutes(L.buffer_after, 'default 0')),
  minimum_booking_notice: Type.Optional(minutes(L.minimum_booking_notice, 'default 0')),
  scheduling_type: Type.Optional(SchedulingType),
  requires_confirmation: Type.Optional(Type.Boolean()),
  is_active: Type.Optional(Type.Boolean()),
  is_personal: Type.Optional(Type.Boolean()),
  owner_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'a member of the team; required when is_personal' }))),
  external_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: L.externalIdLength }))),
  host_ids: Type.Optional(
    Nullable(
      Type.Array(Type.String({ format: 'uuid' }), {
        minItems: 1,
        maxItems: L.hosts,
        uniqueItems: true,
        description: 'active members of the team; null or absent: every active member of the team',
      }),
    ),
  ),
  custom_fields: Type.Optional(Type.Array(CustomFieldInput, { maxItems: L.customFields, description: 'in display order; replaces the list' })),
};

export const CreateEventTypeBody = Type.Object({
  team_id: Type.String({ minLength: 1, maxLength: 255 }),
  name: Type.String({ minLength: 1, maxLength: L.nameLength }),
  duration: minutes(L.duration, 'length of the meeting'),
  workload: WorkloadInput,
  ...optionalFields,
});

export const UpdateEventTypeBody = Type.Object({
  team_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: L.nameLength })),
  duration: Type.Optional(minutes(L.duration, 'length of the meeting')),
  workload: Type.Optional(WorkloadInput),
  ...optionalFields,
});

export const FieldRule = Type.Object({
  key: Type.String(),
  label: Type.String(),
  type: Type.String(),
  required: Type.Boolean(),
  options: Type.Optional(Type.Array(Type.String())),
  order: Type.Optional(Type.Integer()),
  id: Type.Optional(Type.String()),
  validation: Type.String({ description: 'the rule booking create enforces' }),
  max_length: Type.Optional(Type.Integer()),
  pattern: Type.Optional(Type.String()),
  format: Type.Optional(Type.String()),
});

export const EventTypeFields = Type.Object({
  success: Type.Literal(true),
  event_type_id: Type.String(),
  standard_fields: Type.Array(FieldRule),
  custom_fields: Type.Array(FieldRule),
});
