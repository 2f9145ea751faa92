import type { Db } from '../../db/pool.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import { NotFound } from '../errors.ts';
import { PHONE_PATTERN, PHONE_RULE } from '../phone.ts';
import type { CustomFieldType } from './custom-field-types.ts';
import { FIELD_RULES } from './custom-field-types.ts';
import { customFieldJson } from './present.ts';

/**
 * The booking form of an event type for GET /event-types/{id}/fields: the standard fields every
 * booking create takes, then the type's custom fields, each with the rule booking create applies
 * (src/domain/bookings/validate.ts and custom-field-types.ts enforce them).
 */
const STANDARD_FIELDS = [
  {
    key: 'requested_time',
    label: 'Start time',
    type: 'DATETIME',
    required: true,
    format: 'date-time',
    validation: 'ISO 8601 date-time; must be a slot start listed by GET /availability for this event type',
  },
  {
    key: 'attendee.name',
    label: 'Name',
    type: 'TEXT',
    required: true,
    max_length: 200,
    validation: 'non-blank string, at most 200 characters',
  },
  {
    key: 'attendee.email',
    label: 'Email',
    type: 'EMAIL',
    required: true,
    max_length: 254,
    format: 'email',
    validation: 'email address, at most 254 characters',
  },
  { key: 'attendee.phone', label: 'Phone', type: 'PHONE', required: false, pattern: PHONE_PATTERN, validation: PHONE_RULE },
  { key: 'attendee.timezone', label: 'Time zone', type: 'TIMEZONE', required: false, validation: 'IANA time zone such as "Europe/Berlin"' },
  {
    key: 'assign_to',
    label: 'Team member',
    type: 'MEMBER',
    required: false,
    format: 'uuid',
    validation: 'id of a host of this event type who is free at requested_time',
  },
  {
    key: 'metadata',
    label: 'Metadata',
    type: 'OBJECT',
    required: false,
    validation: 'object of any JSON values: at most 50 top-level keys of 1 to 40 characters, at most 16 KB as JSON',
  },
];

const MAX_LENGTH: Partial<Record<CustomFieldType, number>> = { TEXT: 500, TEXTAREA: 5000 };

export async function getEventTypeFields(db: Db, organizationId: string, id: string) {
  const type = await eventTypes.findVisibleWithFields(db, organizationId, id);
  if (!type) throw new NotFound(`event type "${id}" not found`);
  return {
    event_type_id: type.id,
    standard_fields: STANDARD_FIELDS,
    custom_fields: type.custom_fields.map((f) => ({
      ...customFieldJson(f),
      validation: FIELD_RULES[f.type as CustomFieldType] ?? 'any value',
      ...(MAX_LENGTH[f.type as CustomFieldType] ? { max_length: MAX_LENGTH[f.type as CustomFieldType] } : {}),
    })),
  };
}
