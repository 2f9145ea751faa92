import { PHONE_RULE, isPhone } from '../phone.ts';
import { longerThan } from '../../lib/characters.ts';
import type { FieldDefinition } from '../event-types/custom-field-types.ts';
import { customFieldProblem, isBlank } from '../event-types/custom-field-types.ts';
import { DATE_TIME_RULE, parseDateTime } from '../../lib/dates.ts';
import { ValidationError } from '../errors.ts';
import { isEmailAddress } from '../email-address.ts';
import { zoneName } from '../../lib/zones.ts';
import type { Attendee } from '../vocabulary.ts';

/** Documented in docs/bookings.md. */
export const LIMITS = {
  nameLength: 200,
  emailLength: 254,
  metadataKeys: 50,
  metadataKeyLength: 40,
  /** The whole object as JSON, in UTF-8 bytes. */
  metadataBytes: 16 * 1024,
  reasonLength: 500,
} as const;

/** The attendee's fields, in the API's order. */
export const ATTENDEE_FIELDS = ['name', 'email', 'phone', 'timezone'] as const;

export interface AttendeeInput {
  name?: unknown;
  email?: unknown;
  phone?: unknown;
  timezone?: unknown;
}

function checkName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ValidationError(`field "${field}" is required`, field);
  if (longerThan(value, LIMITS.nameLength))
    throw new ValidationError(`field "${field}" must be at most ${LIMITS.nameLength} characters`, field);
  return value.trim();
}

function checkEmail(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ValidationError(`field "${field}" is required`, field);
  const email = value.trim();
  if (email.length > LIMITS.emailLength || !isEmailAddress(email)) {
    throw new ValidationError(`field "${field}" must be an email address`, field);
  }
  return email;
}

function checkPhone(value: unknown, field: string): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || !isPhone(value.trim())) {
    throw new ValidationError(`field "${field}" must be a ${PHONE_RULE}`, field);
  }
  return value.trim();
}

function checkTimezone(value: unknown, field: string): string | null {
  if (value === null || value === undefined || value === '') return null;
  const name = typeof value === 'string' ? zoneName(value) : undefined;
  if (name === undefined) throw new ValidationError(`field "${field}" must be an IANA time zone such as "Europe/Berlin"`, field);
  return name;
}

/** The attendee of a new booking: name and email required. */
export function validateAttendee(input: AttendeeInput): Attendee {
  return {
    name: checkName(input.name, 'attendee.name'),
    email: checkEmail(input.email, 'attendee.email'),
    phone: checkPhone(input.phone, 'attendee.phone'),
    timezone: checkTimezone(input.timezone, 'attendee.timezone'),
  };
}

/** A PATCH's attendee fields, each checked: only the fields sent change; name and email may not be cleared. */
export function validateAttendeePatch(patch: AttendeeInput): Partial<Attendee> {
  const valid: Partial<Attendee> = {};
  if ('name' in patch) valid.name = checkName(patch.name, 'attendee.name');
  if ('email' in patch) valid.email = checkEmail(patch.email, 'attendee.email');
  if ('phone' in patch) valid.phone = checkPhone(patch.phone, 'attendee.phone');
  if ('timezone' in patch) valid.timezone = checkTimezone(patch.timezone, 'attendee.timezone');
  return valid;
}

/**
 * Custom fields against the event type's definitions: unknown keys are dropped (api-spec),
 * required ones must be present and not blank, every value sent must fit its type.
 */
export function validateCustomFields(
  defs: readonly FieldDefinition[],
  input: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const values = input ?? {};
  const out: Record<string, unknown> = {};
  for (const def of defs) {
    const field = `custom_fields.${def.key}`;
    const value = Object.hasOwn(values, def.key) ? values[def.key] : undefined;
    if (isBlank(value)) {
      if (def.required) throw new ValidationError(`field "${field}" is required`, field);
      continue;
    }
    const problem = customFieldProblem(def, value);
    if (problem) throw new ValidationError(`field "${field}" ${problem}`, field);
    out[def.key] = value;
  }
  return out;
}

/**
 * Metadata is the client's own free-form object (decisions.md §8): values may be any JSON
 * (strings, numbers, booleans, null, arrays, objects) and are returned as sent; at most 50
 * top-level keys of 1 to 40 characters (code points), the whole object at most 16 KB as JSON
 * (UTF-8 bytes), numbers finite. Every refusal names `metadata`. Text PostgreSQL cannot store
 * and nesting deeper than the edge allows never get here (src/http/plugins/hostile-text.ts).
 */
export function validateMetadata(input: unknown): Record<string, unknown> {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new ValidationError('field "metadata" must be an object', 'metadata');
  const keys = Object.keys(input);
  if (keys.length > LIMITS.metadataKeys) {
    throw new ValidationError(`field "metadata" may hold at most ${LIMITS.metadataKeys} keys, got ${keys.length}`, 'metadata');
  }
  const badKey = keys.find((key) => key.length === 0 || longerThan(key, LIMITS.metadataKeyLength));
  if (badKey !== undefined) {
    const shown = badKey.length > 60 ? `${[...badKey].slice(0, 60).join('')}…` : badKey;
    throw new ValidationError(`field "metadata": keys must be 1 to ${LIMITS.metadataKeyLength} characters, got "${shown}"`, 'metadata');
  }
  // 1e999 parses as Infinity, which JSON.stringify would store as null: refused, not changed
  const json = JSON.stringify(input, (_key, value: unknown) => {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new ValidationError('field "metadata": a number is too large for a double (such as 1e999)', 'metadata');
    return value;
  });
  const bytes = Buffer.byteLength(json);
  if (bytes > LIMITS.metadataBytes) {
    throw new ValidationError(`field "metadata" must be at most ${LIMITS.metadataBytes / 1024} KB as JSON, got ${bytes} bytes`, 'metadata');
  }
  return input as Record<string, unknown>;
}

/** A body date-time through the one date parser (src/lib/dates.ts), or a 400 naming the field. */
export function instantField(value: string, field: string): Date {
  const t = parseDateTime(value);
  if (t === undefined) throw new ValidationError(`field "${field}" must be ${DATE_TIME_RULE}`, field);
  return new Date(t);
}

/** A booking start must lie ahead of now; "in the past" is 400 (decisions.md §4 allows 400 or 409). */
export function requireFuture(start: Date, now: Date, field: string): void {
  if (start.getTime() <= now.getTime()) throw new ValidationError(`field "${field}" must be in the future`, field);
}

export function validateReason(reason: unknown): string | null {
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== 'string') throw new ValidationError('field "reason" must be a string', 'reason');
  if (longerThan(reason, LIMITS.reasonLength)) {
    throw new ValidationError(`field "reason" must be at most ${LIMITS.reasonLength} characters`, 'reason');
  }
  return reason;
}
