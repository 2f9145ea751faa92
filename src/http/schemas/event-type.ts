import { Type } from 'typebox';
import { CUSTOM_FIELD_TYPES } from '../../domain/event-types/custom-field-types.ts';
import { CUSTOM_FIELD_KEY_PATTERN, EVENT_TYPE_LIMITS as L, SLUG_PATTERN } from '../../domain/event-types/limits.ts';
import { DateTime, Nullable, StringEnum, ref } from './common.ts';

export const SchedulingType = StringEnum(['SOLO', 'ROUND_ROBIN', 'COLLECTIVE'], {
  $id: 'SchedulingType',
  description: 'SOLO: one member chosen by routing; ROUND_ROBIN: spread evenly over the hosts; COLLECTIVE: every host, all free at once.',
});

export const CustomFieldType = StringEnum(CUSTOM_FIELD_TYPES, {
  $id: 'CustomFieldType',
  description: 'SELECT and MULTISELECT take `options`; docs/scheduling.md has the rule of each type.',
});

const WORKLOAD_EXAMPLE = { prep: 10, meeting: 30, implementation: 0, admin: 5 };
const CUSTOM_FIELD_EXAMPLE = {
  id: 'cf_3b9d0e6f1a2c4d5e7f80',
  key: 'company',
  label: 'Company',
  type: 'TEXT',
  required: true,
  options: [],
  order: 0,
};
const EVENT_TYPE_EXAMPLE = {
  id: 'et_8d1e4b7a92c3f0a15e6d',
  name: 'Product demo',
  slug: 'product-demo',
  description: 'A 30-minute walk through the product',
  duration: 30,
  slot_interval: 30,
  buffer_before: 0,
  buffer_after: 10,
  minimum_booking_notice: 120,
  scheduling_type: 'ROUND_ROBIN',
  team_id: 'team_sales',
  requires_confirmation: false,
  mode: 'SIMPLE',
  is_active: true,
  is_personal: false,
  owner_id: null,
  external_id: null,
  workload: WORKLOAD_EXAMPLE,
  host_ids: null,
  created_at: '2026-11-02T08:00:00.000Z',
  updated_at: '2026-11-02T08:00:00.000Z',
};

export const Workload = Type.Object(
  {
    prep: Type.Integer({ minimum: 0 }),
    meeting: Type.Integer({ minimum: 1 }),
    implementation: Type.Integer({ minimum: 0 }),
    admin: Type.Integer({ minimum: 0 }),
  },
  { $id: 'Workload', description: 'Minutes of work one booking costs the host, by kind.', examples: [WORKLOAD_EXAMPLE] },
);

export const CustomField = Type.Object(
  {
    id: Type.String(),
    key: Type.String({ description: "the key of the answer in a booking's custom_fields" }),
    label: Type.String(),
    type: ref(CustomFieldType),
    required: Type.Boolean(),
    options: Type.Array(Type.String(), { description: 'the choices of a SELECT or MULTISELECT field' }),
    order: Type.Integer({ description: 'display order, from 0' }),
  },
  { $id: 'CustomField', description: 'A question of the booking form.', examples: [CUSTOM_FIELD_EXAMPLE] },
);

export const EventType = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    description: Nullable(Type.String()),
    duration: Type.Integer({ description: 'minutes' }),
    slot_interval: Type.Integer({ description: 'minutes; defaults to duration' }),
    buffer_before: Type.Integer({ description: 'minutes' }),
    buffer_after: Type.Integer({ description: 'minutes' }),
    minimum_booking_notice: Type.Integer({ description: 'minutes' }),
    scheduling_type: ref(SchedulingType),
    team_id: Type.String(),
    requires_confirmation: Type.Boolean(),
    mode: Type.String(),
    is_active: Type.Boolean(),
    is_personal: Type.Boolean(),
    owner_id: Nullable(Type.String()),
    external_id: Nullable(Type.String()),
    workload: ref(Workload),
    host_ids: Nullable(Type.Array(Type.String(), { description: 'null: every active member of the team' })),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'EventType', description: 'The rules of a bookable meeting.', examples: [EVENT_TYPE_EXAMPLE] },
);

export const EventTypeDetail = Type.Object(
  { ...EventType.properties, custom_fields: Type.Array(ref(CustomField), { description: 'in display order' }) },
  {
    $id: 'EventTypeDetail',
    description: 'An event type with its custom fields.',
    examples: [{ ...EVENT_TYPE_EXAMPLE, custom_fields: [CUSTOM_FIELD_EXAMPLE] }],
  },
);

const minutes = (bounds: { minimum: number; maximum: number }, description: string) =>
  Type.Integer({ ...bounds, description: `minutes, ${bounds.minimum}..${bounds.maximum}; ${description}` });

export const WorkloadInput = Type.Object(
  {
    prep: Type.Integer({ minimum: 0, maximum: L.workload.maximum }),
    meeting: Type.Integer({ minimum: 1, maximum: L.workload.maximum }),
    implementation: Type.Integer({ minimum: 0, maximum: L.workload.maximum }),
    admin: Type.Integer({ minimum: 0, maximum: L.workload.maximum }),
  },
  { $id: 'WorkloadInput', examples: [WORKLOAD_EXAMPLE] },
);

export const CustomFieldInput = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: L.customFieldKeyLength, pattern: CUSTOM_FIELD_KEY_PATTERN }),
    label: Type.String({ minLength: 1, maxLength: L.customFieldLabelLength }),
    type: ref(CustomFieldType),
    required: Type.Optional(Type.Boolean({ default: false })),
    options: Type.Optional(
      Nullable(
        Type.Array(Type.String({ minLength: 1, maxLength: L.customFieldOptionLength }), {
          maxItems: L.customFieldOptions,
          description: 'SELECT and MULTISELECT only',
        }),
      ),
    ),
  },
  {
    $id: 'CustomFieldInput',
    examples: [{ key: 'plan', label: 'Plan', type: 'SELECT', required: true, options: ['Starter', 'Business'] }],
  },
);

const optionalFields = {
  slug: Type.Optional(
    Type.String({ minLength: 1, maxLength: L.slugLength, pattern: SLUG_PATTERN, description: 'default: made from name' }),
  ),
  description: Type.Optional(Nullable(Type.String({ maxLength: L.descriptionLength }))),
  slot_interval: Type.Optional(minutes(L.slot_interval, 'default: duration')),
  buffer_before: Type.Optional(minutes(L.buffer_before, 'default 0')),
  buffer_after: Type.Optional(minutes(L.buffer_after, 'default 0')),
  minimum_booking_notice: Type.Optional(minutes(L.minimum_booking_notice, 'default 0')),
  scheduling_type: Type.Optional(ref(SchedulingType)),
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
  custom_fields: Type.Optional(
    Type.Array(ref(CustomFieldInput), { maxItems: L.customFields, description: 'in display order; replaces the list' }),
  ),
};

export const CreateEventTypeBody = Type.Object(
  {
    team_id: Type.String({ minLength: 1, maxLength: 255 }),
    name: Type.String({ minLength: 1, maxLength: L.nameLength }),
    duration: minutes(L.duration, 'length of the meeting'),
    workload: ref(WorkloadInput),
    ...optionalFields,
  },
  {
    $id: 'CreateEventTypeRequest',
    examples: [
      {
        team_id: 'team_sales',
        name: 'Product demo',
        duration: 30,
        workload: WORKLOAD_EXAMPLE,
        buffer_after: 10,
        minimum_booking_notice: 120,
        scheduling_type: 'ROUND_ROBIN',
        custom_fields: [{ key: 'company', label: 'Company', type: 'TEXT', required: true }],
      },
    ],
  },
);

export const UpdateEventTypeBody = Type.Object(
  {
    team_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: L.nameLength })),
    duration: Type.Optional(minutes(L.duration, 'length of the meeting')),
    workload: Type.Optional(ref(WorkloadInput)),
    ...optionalFields,
  },
  { $id: 'UpdateEventTypeRequest', examples: [{ duration: 45, buffer_before: 5, requires_confirmation: true }] },
);

const EMAIL_RULE = {
  key: 'attendee.email',
  label: 'Email',
  type: 'EMAIL',
  required: true,
  max_length: 254,
  format: 'email',
  validation: 'email address, at most 254 characters',
};

export const FieldRule = Type.Object(
  {
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
  },
  {
    $id: 'FieldRule',
    description: 'One input of the booking form and the rule booking create enforces on it.',
    examples: [{ ...EMAIL_RULE }],
  },
);

export const EventTypeFields = Type.Object(
  {
    success: Type.Literal(true),
    event_type_id: Type.String(),
    standard_fields: Type.Array(ref(FieldRule), { description: 'requested_time, attendee.*, assign_to, metadata' }),
    custom_fields: Type.Array(ref(FieldRule), { description: "the event type's own questions, in display order" }),
  },
  {
    $id: 'EventTypeFields',
    description: 'The booking form of an event type.',
    examples: [
      {
        success: true,
        event_type_id: 'et_8d1e4b7a92c3f0a15e6d',
        standard_fields: [
          {
            key: 'attendee.name',
            label: 'Name',
            type: 'TEXT',
            required: true,
            max_length: 200,
            validation: 'non-blank string, at most 200 characters',
          },
          EMAIL_RULE,
        ],
        custom_fields: [
          {
            id: 'cf_3b9d0e6f1a2c4d5e7f80',
            key: 'plan',
            label: 'Plan',
            type: 'SELECT',
            required: true,
            options: ['Starter', 'Business'],
            order: 0,
            validation: 'one of options',
          },
        ],
      },
    ],
  },
);
