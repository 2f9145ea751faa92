import { parseDateTime } from '../../lib/dates.ts';
import { zoneName } from '../../lib/zones.ts';
import { isEmailAddress } from '../email-address.ts';
import { PUBLISHABLE_SCOPES, isScope, parseKey } from '../auth/scopes.ts';
import { CUSTOM_FIELD_TYPES } from '../event-types/custom-field-types.ts';
import { CUSTOM_FIELD_KEY_PATTERN, EVENT_TYPE_LIMITS, SLUG_PATTERN } from '../event-types/limits.ts';
import { isMemberId } from '../members/member-id.ts';
import { MAX_CALENDAR_URL_LENGTH, checkCalendarUrl } from '../calendars/url-rules.ts';

/** A bad seed file: the message names the JSON path of the first bad value. */
export class SeedError extends Error {}

export interface SeedWorkingHours {
  days: string[];
  start: string;
  end: string;
}
export interface SeedMember {
  id: string;
  team_id: string;
  name: string;
  email: string;
  avatar_url: string | null;
  role: string;
  skills: string[];
  is_active: boolean;
  timezone: string;
  max_bookings_per_day: number;
  working_hours: SeedWorkingHours[];
  out_of_office: { start: string; end: string; reason: string | null }[];
}
export interface SeedCustomField {
  key: string;
  label: string;
  type: string;
  required: boolean;
  options: string[] | null;
}
export interface SeedEventType {
  id: string;
  team_id: string;
  name: string;
  slug: string;
  description: string | null;
  duration: number;
  slot_interval: number;
  buffer_before: number;
  buffer_after: number;
  minimum_booking_notice: number;
  scheduling_type: 'SOLO' | 'ROUND_ROBIN' | 'COLLECTIVE';
  requires_confirmation: boolean;
  is_active: boolean;
  is_personal: boolean;
  owner_id: string | null;
  external_id: string | null;
  workload: { prep: number; meeting: number; implementation: number; admin: number };
  custom_fields: SeedCustomField[];
  host_ids: string[] | null;
}
export interface SeedCalendar {
  id: string;
  userId: string;
  teamId: string;
  provider: string;
  calendarId: string;
  calendarName: string | null;
  providerEmail: string | null;
  timezone: string | null;
  isPrimary: boolean;
  syncStatus: string;
  lastSyncAt: string | null;
  supportsWebhooks: boolean;
  /** As in the file; absent: when seed first writes the calendar, and when it last changed it. */
  createdAt: string | null;
  updatedAt: string | null;
  /** CALDAV/APPLE only: the calendar collection to sync and write bookings to (docs/calendars.md). */
  connection: { url: string; username: string; password: string } | null;
}
export interface SeedApiKey {
  key: string;
  name: string;
  scopes: string[];
  allowed_origins: string[] | null;
}
export interface SeedOrganization {
  id: string;
  name: string;
  cancellation_policy: { enabled: boolean; cutoff_minutes: number };
  teams: { id: string; name: string }[];
  members: SeedMember[];
  event_types: SeedEventType[];
  calendars: SeedCalendar[];
  api_keys: SeedApiKey[];
}
export interface SeedFile {
  organizations: SeedOrganization[];
}

type Obj = Record<string, unknown>;
const DAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'];
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const PROVIDERS = ['GOOGLE', 'MICROSOFT', 'APPLE', 'CALDAV'];
const SYNCED = ['CALDAV', 'APPLE'];
const SYNC = ['PENDING', 'SYNCING', 'SUCCESS', 'ERROR', 'NEEDS_REAUTH'];
const SCHEDULING = ['SOLO', 'ROUND_ROBIN', 'COLLECTIVE'];

function fail(path: string, message: string): never {
  throw new SeedError(`${path}: ${message}`);
}

function obj(v: unknown, path: string): Obj {
  if (!v || typeof v !== 'object' || Array.isArray(v)) fail(path, 'expected an object');
  return v as Obj;
}
function arr(v: unknown, path: string, optional = false): unknown[] {
  if (v === undefined && optional) return [];
  if (!Array.isArray(v)) fail(path, 'expected an array');
  return v;
}
function str(v: unknown, path: string, opts: { optional?: boolean; nullable?: boolean; max?: number } = {}): string | null {
  if (v === undefined && opts.optional) return null;
  if (v === null && opts.nullable) return null;
  if (typeof v !== 'string' || v.length === 0) fail(path, 'expected a non-empty string');
  if (v.length > (opts.max ?? 500)) fail(path, `longer than ${opts.max ?? 500} characters`);
  return v;
}
function reqStr(v: unknown, path: string, max?: number): string {
  return str(v, path, { max }) as string;
}
function bool(v: unknown, path: string, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') fail(path, 'expected true or false');
  return v;
}
function int(v: unknown, path: string, min: number, max: number, fallback?: number): number {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(path, 'expected a whole number');
  if (v < min || v > max) fail(path, `must be between ${min} and ${max}, got ${v}`);
  return v;
}
function oneOf(v: unknown, path: string, allowed: string[]): string {
  if (typeof v !== 'string' || !allowed.includes(v)) fail(path, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  return v;
}
function instant(v: unknown, path: string): string {
  const s = reqStr(v, path);
  if (parseDateTime(s) === undefined) {
    fail(path, `not an ISO 8601 date-time with offset: "${s}"`);
  }
  return s;
}
function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
}

/** Ids must be unique across the whole file for each kind: seeding updates by id. */
class Ids {
  private seen = new Map<string, string>();
  add(kind: string, id: string, path: string): void {
    const key = `${kind}:${id}`;
    const first = this.seen.get(key);
    if (first) fail(path, `duplicate ${kind} id "${id}" (first at ${first})`);
    this.seen.set(key, path);
  }
}

function member(raw: unknown, p: string, teams: Set<string>): SeedMember {
  const m = obj(raw, p);
  const id = reqStr(m.id, `${p}.id`);
  if (!isMemberId(id)) fail(`${p}.id`, `expected a UUID, got "${id}"`);
  const teamId = reqStr(m.team_id, `${p}.team_id`);
  if (!teams.has(teamId)) fail(`${p}.team_id`, `unknown team "${teamId}"`);
  const email = reqStr(m.email, `${p}.email`, 254);
  if (!isEmailAddress(email)) fail(`${p}.email`, `not an email address: "${email}"`);
  const written = reqStr(m.timezone, `${p}.timezone`);
  const timezone = zoneName(written) ?? fail(`${p}.timezone`, `unknown time zone "${written}"`);
  const hours = arr(m.working_hours, `${p}.working_hours`, true).map((w, i) => {
    const wp = `${p}.working_hours[${i}]`;
    const o = obj(w, wp);
    const days = arr(o.days, `${wp}.days`).map((d, j) => oneOf(d, `${wp}.days[${j}]`, DAYS));
    const start = reqStr(o.start, `${wp}.start`);
    if (!HHMM.test(start) || start === '24:00') fail(`${wp}.start`, `expected HH:MM, got "${start}"`);
    const end = reqStr(o.end, `${wp}.end`);
    if (!HHMM.test(end)) fail(`${wp}.end`, `expected HH:MM, got "${end}"`);
    if (minutes(end) <= minutes(start)) fail(`${wp}.end`, `end ${end} is not after start ${start}`);
    return { days, start, end };
  });
  const ooo = arr(m.out_of_office, `${p}.out_of_office`, true).map((b, i) => {
    const bp = `${p}.out_of_office[${i}]`;
    const o = obj(b, bp);
    const start = instant(o.start, `${bp}.start`);
    const end = instant(o.end, `${bp}.end`);
    if (Date.parse(end) <= Date.parse(start)) fail(`${bp}.end`, 'end is not after start');
    return { start, end, reason: str(o.reason, `${bp}.reason`, { optional: true, nullable: true }) };
  });
  return {
    id,
    team_id: teamId,
    name: reqStr(m.name, `${p}.name`, 200),
    email,
    avatar_url: str(m.avatar_url, `${p}.avatar_url`, { optional: true, nullable: true, max: 2000 }),
    role: str(m.role, `${p}.role`, { optional: true }) ?? 'MEMBER',
    skills: arr(m.skills, `${p}.skills`, true).map((s, i) => reqStr(s, `${p}.skills[${i}]`, 100)),
    is_active: bool(m.is_active, `${p}.is_active`, true),
    timezone,
    max_bookings_per_day: int(m.max_bookings_per_day, `${p}.max_bookings_per_day`, 0, 1000, 8),
    working_hours: hours,
    out_of_office: ooo,
  };
}

// The API's own bounds and patterns (event-types/limits.ts): a seeded type is one the API could have made.
const L = EVENT_TYPE_LIMITS;
const SLUG = new RegExp(SLUG_PATTERN);
const KEY = new RegExp(CUSTOM_FIELD_KEY_PATTERN);

function eventType(raw: unknown, p: string, teams: Set<string>, members: Map<string, SeedMember>): SeedEventType {
  const e = obj(raw, p);
  const teamId = reqStr(e.team_id, `${p}.team_id`);
  if (!teams.has(teamId)) fail(`${p}.team_id`, `unknown team "${teamId}"`);
  const duration = int(e.duration, `${p}.duration`, L.duration.minimum, L.duration.maximum);
  const w = obj(e.workload, `${p}.workload`);
  const hostIds =
    e.host_ids === undefined || e.host_ids === null
      ? null
      : arr(e.host_ids, `${p}.host_ids`).map((h, i) => {
          const id = reqStr(h, `${p}.host_ids[${i}]`);
          const host = members.get(id) ?? fail(`${p}.host_ids[${i}]`, `unknown member "${id}"`);
          // as POST and PATCH /event-types: hosts are members of the type's team
          if (host.team_id !== teamId) fail(`${p}.host_ids[${i}]`, `member "${id}" is not in team "${teamId}"`);
          return id;
        });
  const ownerId = str(e.owner_id, `${p}.owner_id`, { optional: true, nullable: true });
  if (ownerId !== null && !members.has(ownerId)) fail(`${p}.owner_id`, `unknown member "${ownerId}"`);
  const isPersonal = bool(e.is_personal, `${p}.is_personal`, false);
  if (isPersonal && ownerId === null) fail(`${p}.owner_id`, 'required when is_personal is true');
  const keys = new Set<string>();
  const fields = arr(e.custom_fields, `${p}.custom_fields`, true).map((f, i) => {
    const fp = `${p}.custom_fields[${i}]`;
    const o = obj(f, fp);
    const key = reqStr(o.key, `${fp}.key`, L.customFieldKeyLength);
    if (!KEY.test(key)) fail(`${fp}.key`, `must match ${CUSTOM_FIELD_KEY_PATTERN}`);
    if (keys.has(key)) fail(`${fp}.key`, `duplicate custom field key "${key}"`);
    keys.add(key);
    const type = oneOf(o.type, `${fp}.type`, [...CUSTOM_FIELD_TYPES]);
    const options =
      o.options === undefined || o.options === null
        ? null
        : arr(o.options, `${fp}.options`).map((x, j) => reqStr(x, `${fp}.options[${j}]`, L.customFieldOptionLength));
    if (options && options.length > L.customFieldOptions) fail(`${fp}.options`, `at most ${L.customFieldOptions}`);
    if ((type === 'SELECT' || type === 'MULTISELECT') && (!options || options.length === 0)) fail(`${fp}.options`, `required for ${type}`);
    return {
      key,
      label: reqStr(o.label, `${fp}.label`, L.customFieldLabelLength),
      type,
      required: bool(o.required, `${fp}.required`, false),
      options,
    };
  });
  if (fields.length > L.customFields) fail(`${p}.custom_fields`, `at most ${L.customFields}`);
  if (hostIds && hostIds.length > L.hosts) fail(`${p}.host_ids`, `at most ${L.hosts}`);
  const slug = reqStr(e.slug, `${p}.slug`, L.slugLength);
  if (!SLUG.test(slug)) fail(`${p}.slug`, 'lower-case letters and digits joined by single dashes');
  return {
    id: reqStr(e.id, `${p}.id`, 255),
    team_id: teamId,
    name: reqStr(e.name, `${p}.name`, L.nameLength),
    slug,
    description: str(e.description, `${p}.description`, { optional: true, nullable: true, max: L.descriptionLength }),
    duration,
    slot_interval: int(e.slot_interval, `${p}.slot_interval`, L.slot_interval.minimum, L.slot_interval.maximum, duration),
    buffer_before: int(e.buffer_before, `${p}.buffer_before`, L.buffer_before.minimum, L.buffer_before.maximum, 0),
    buffer_after: int(e.buffer_after, `${p}.buffer_after`, L.buffer_after.minimum, L.buffer_after.maximum, 0),
    minimum_booking_notice: int(
      e.minimum_booking_notice,
      `${p}.minimum_booking_notice`,
      L.minimum_booking_notice.minimum,
      L.minimum_booking_notice.maximum,
      0,
    ),
    scheduling_type: oneOf(e.scheduling_type, `${p}.scheduling_type`, SCHEDULING) as SeedEventType['scheduling_type'],
    requires_confirmation: bool(e.requires_confirmation, `${p}.requires_confirmation`, false),
    is_active: bool(e.is_active, `${p}.is_active`, true),
    is_personal: isPersonal,
    owner_id: ownerId,
    external_id: str(e.external_id, `${p}.external_id`, { optional: true, nullable: true, max: L.externalIdLength }),
    workload: {
      prep: int(w.prep, `${p}.workload.prep`, 0, L.workload.maximum),
      meeting: int(w.meeting, `${p}.workload.meeting`, 1, L.workload.maximum),
      implementation: int(w.implementation, `${p}.workload.implementation`, 0, L.workload.maximum),
      admin: int(w.admin, `${p}.workload.admin`, 0, L.workload.maximum),
    },
    custom_fields: fields,
    host_ids: hostIds,
  };
}

function calendar(raw: unknown, p: string, teams: Set<string>, members: Map<string, SeedMember>): SeedCalendar {
  const c = obj(raw, p);
  const userId = reqStr(c.userId, `${p}.userId`);
  if (!members.has(userId)) fail(`${p}.userId`, `unknown member "${userId}"`);
  const teamId = reqStr(c.teamId, `${p}.teamId`);
  if (!teams.has(teamId)) fail(`${p}.teamId`, `unknown team "${teamId}"`);
  const written = str(c.timezone, `${p}.timezone`, { optional: true, nullable: true });
  const timezone = written === null ? null : (zoneName(written) ?? fail(`${p}.timezone`, `unknown time zone "${written}"`));
  const provider = oneOf(c.provider, `${p}.provider`, PROVIDERS);
  return {
    id: reqStr(c.id, `${p}.id`, 255),
    userId,
    teamId,
    provider,
    connection: connection(c.connection, `${p}.connection`, provider),
    calendarId: reqStr(c.calendarId, `${p}.calendarId`, 1000),
    calendarName: str(c.calendarName, `${p}.calendarName`, { optional: true, nullable: true }),
    providerEmail: str(c.providerEmail, `${p}.providerEmail`, { optional: true, nullable: true }),
    timezone,
    isPrimary: bool(c.isPrimary, `${p}.isPrimary`, false),
    syncStatus: c.syncStatus === undefined ? 'PENDING' : oneOf(c.syncStatus, `${p}.syncStatus`, SYNC),
    lastSyncAt: c.lastSyncAt === undefined || c.lastSyncAt === null ? null : instant(c.lastSyncAt, `${p}.lastSyncAt`),
    supportsWebhooks: bool(c.supportsWebhooks, `${p}.supportsWebhooks`, false),
    ...createdAndUpdated(c, p),
  };
}

/** A calendar's `connection {url, username, password}`: CALDAV and APPLE only, URL rules of docs/calendars.md. */
function connection(raw: unknown, p: string, provider: string): SeedCalendar['connection'] {
  if (raw === undefined || raw === null) return null;
  if (!SYNCED.includes(provider)) fail(p, `only ${SYNCED.join(' and ')} calendars can be connected; ${provider} is metadata only`);
  const c = obj(raw, p);
  const url = reqStr(c.url, `${p}.url`, MAX_CALENDAR_URL_LENGTH);
  try {
    checkCalendarUrl(url);
  } catch (err) {
    fail(`${p}.url`, (err as Error).message.replace(/^url: /, ''));
  }
  for (const key of Object.keys(c)) if (!['url', 'username', 'password'].includes(key)) fail(`${p}.${key}`, 'unknown field');
  // the password is never echoed, even in an error
  if (typeof c.password !== 'string' || c.password.length === 0 || c.password.length > 1000)
    fail(`${p}.password`, 'expected a non-empty string');
  return { url, username: reqStr(c.username, `${p}.username`, 500), password: c.password };
}

function createdAndUpdated(c: Obj, p: string): { createdAt: string | null; updatedAt: string | null } {
  const createdAt = c.createdAt === undefined || c.createdAt === null ? null : instant(c.createdAt, `${p}.createdAt`);
  const updatedAt = c.updatedAt === undefined || c.updatedAt === null ? null : instant(c.updatedAt, `${p}.updatedAt`);
  if (updatedAt !== null && createdAt === null) fail(`${p}.updatedAt`, 'given without createdAt');
  if (createdAt !== null && updatedAt !== null && Date.parse(updatedAt) < Date.parse(createdAt)) {
    fail(`${p}.updatedAt`, `before createdAt (${createdAt})`);
  }
  return { createdAt, updatedAt };
}

function apiKey(raw: unknown, p: string): SeedApiKey {
  const k = obj(raw, p);
  const key = reqStr(k.key, `${p}.key`, 250);
  const parsed = parseKey(key);
  if (!parsed) fail(`${p}.key`, 'must start with pk_live_, pk_test_, sk_live_ or sk_test_ followed by at least 8 letters, digits, _ or -');
  const scopes = arr(k.scopes, `${p}.scopes`).map((s, i) => {
    const sp = `${p}.scopes[${i}]`;
    if (typeof s !== 'string' || !isScope(s)) fail(sp, `unknown scope ${JSON.stringify(s)}`);
    if (parsed.kind === 'publishable' && !PUBLISHABLE_SCOPES.has(s)) fail(sp, `scope "${s}" is for secret keys only`);
    return s;
  });
  const origins =
    k.allowed_origins === undefined || k.allowed_origins === null
      ? null
      : arr(k.allowed_origins, `${p}.allowed_origins`).map((o, i) => {
          const op = `${p}.allowed_origins[${i}]`;
          const s = reqStr(o, op);
          let u: URL;
          try {
            u = new URL(s);
          } catch {
            fail(op, `not an origin: "${s}"`);
          }
          if (u.origin !== s) fail(op, `not an origin (scheme://host[:port]): "${s}"`);
          return s;
        });
  return { key, name: reqStr(k.name, `${p}.name`, 200), scopes, allowed_origins: origins };
}

/** Checks a whole seed file; throws SeedError naming the first bad value's path. */
export function validateSeed(raw: unknown): SeedFile {
  const root = obj(raw, '$');
  const ids = new Ids();
  const keys = new Set<string>();
  const organizations = arr(root.organizations, 'organizations').map((o, oi) => {
    const p = `organizations[${oi}]`;
    const org = obj(o, p);
    const id = reqStr(org.id, `${p}.id`, 255);
    ids.add('organization', id, `${p}.id`);
    const policy = org.cancellation_policy === undefined ? {} : obj(org.cancellation_policy, `${p}.cancellation_policy`);
    const teams = arr(org.teams, `${p}.teams`).map((t, i) => {
      const tp = `${p}.teams[${i}]`;
      const team = obj(t, tp);
      const teamId = reqStr(team.id, `${tp}.id`, 255);
      ids.add('team', teamId, `${tp}.id`);
      return { id: teamId, name: reqStr(team.name, `${tp}.name`, 200) };
    });
    const teamIds = new Set(teams.map((t) => t.id));
    const members = arr(org.members, `${p}.members`, true).map((m, i) => {
      const parsed = member(m, `${p}.members[${i}]`, teamIds);
      ids.add('member', parsed.id, `${p}.members[${i}].id`);
      return parsed;
    });
    const memberMap = new Map(members.map((m) => [m.id, m]));
    const slugs = new Set<string>();
    const eventTypes = arr(org.event_types, `${p}.event_types`, true).map((e, i) => {
      const ep = `${p}.event_types[${i}]`;
      const parsed = eventType(e, ep, teamIds, memberMap);
      ids.add('event type', parsed.id, `${ep}.id`);
      if (slugs.has(parsed.slug)) fail(`${ep}.slug`, `duplicate slug "${parsed.slug}"`);
      slugs.add(parsed.slug);
      return parsed;
    });
    const calendars = arr(org.calendars, `${p}.calendars`, true).map((c, i) => {
      const parsed = calendar(c, `${p}.calendars[${i}]`, teamIds, memberMap);
      ids.add('calendar', parsed.id, `${p}.calendars[${i}].id`);
      return parsed;
    });
    const apiKeys = arr(org.api_keys, `${p}.api_keys`, true).map((k, i) => {
      const parsed = apiKey(k, `${p}.api_keys[${i}]`);
      if (keys.has(parsed.key)) fail(`${p}.api_keys[${i}].key`, 'duplicate key');
      keys.add(parsed.key);
      return parsed;
    });
    return {
      id,
      name: reqStr(org.name, `${p}.name`, 200),
      cancellation_policy: {
        enabled: bool(policy.enabled, `${p}.cancellation_policy.enabled`, true),
        cutoff_minutes: int(policy.cutoff_minutes, `${p}.cancellation_policy.cutoff_minutes`, 0, 525600, 0),
      },
      teams,
      members,
      event_types: eventTypes,
      calendars,
      api_keys: apiKeys,
    };
  });
  return { organizations };
}
