import { parseDate } from '../../lib/dates.ts';
import { longerThan } from '../../lib/characters.ts';
import { isEmailAddress } from '../email-address.ts';
import { PHONE_RULE, isPhone } from '../phone.ts';
/**
 * Custom-field types. The spec shows TEXT and SELECT; the rest are the ones booking forms of
 * Cal.com and Calendly offer. Each type's rule is what `customFieldProblem` enforces at booking
 * create and what GET /event-types/{id}/fields describes (`validation`); SELECT and MULTISELECT
 * need `options` on the event type, other types drop them. Table in docs/scheduling.md.
 */
export const CUSTOM_FIELD_TYPES = ['TEXT', 'TEXTAREA', 'NUMBER', 'BOOLEAN', 'SELECT', 'MULTISELECT', 'EMAIL', 'PHONE', 'DATE'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export const FIELD_RULES: Record<CustomFieldType, string> = {
  TEXT: 'string, at most 500 characters',
  TEXTAREA: 'string, at most 5000 characters',
  NUMBER: 'finite number',
  BOOLEAN: 'true or false',
  SELECT: 'one of options',
  MULTISELECT: 'array of distinct values from options',
  EMAIL: 'email address',
  PHONE: PHONE_RULE,
  DATE: 'calendar date YYYY-MM-DD',
};

export interface FieldDefinition {
  key: string;
  type: string;
  required: boolean;
  options: string[] | null;
}

/** Returns why a value does not fit its field, or null when it does. */
export function customFieldProblem(field: FieldDefinition, value: unknown): string | null {
  const options = field.options ?? [];
  switch (field.type as CustomFieldType) {
    case 'TEXT':
      return typeof value === 'string' && !longerThan(value, 500) ? null : 'must be a string of at most 500 characters';
    case 'TEXTAREA':
      return typeof value === 'string' && !longerThan(value, 5000) ? null : 'must be a string of at most 5000 characters';
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'BOOLEAN':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'SELECT':
      return typeof value === 'string' && options.includes(value) ? null : `must be one of: ${options.join(', ')}`;
    case 'MULTISELECT':
      return Array.isArray(value) &&
        value.every((v) => typeof v === 'string' && options.includes(v)) &&
        new Set(value).size === value.length
        ? null
        : `must be a list of distinct values from: ${options.join(', ')}`;
    case 'EMAIL':
      return typeof value === 'string' && isEmailAddress(value) ? null : 'must be an email address';
    case 'PHONE':
      return typeof value === 'string' && isPhone(value) ? null : 'must be a phone number';
    case 'DATE':
      return typeof value === 'string' && parseDate(value) !== undefined ? null : 'must be a date YYYY-MM-DD';
    default:
      return null;
  }
}

/** Blank values ("" or null) count as missing for required fields. */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}
