import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEMO_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/demo.json');

/** Keys present in testSeed(); every one has the scopes its name says. */
export const KEYS = {
  /** sk_test, every scope (the demo server key) */
  secret: 'sk_test_northwind_demo_server_key_0001',
  /** pk_test with allowed_origins http://127.0.0.1:3000, http://localhost:3000 (the demo page key) */
  publishable: 'pk_test_northwind_demo_booking_page_0001',
  /** sk_live, every scope */
  live: 'sk_live_northwind_live_server_key_0001',
  /** sk_test with only event-types:read */
  readOnly: 'sk_test_northwind_event_types_read_0001',
  /** pk_test without allowed_origins: event-types:read, bookings:create, team:read */
  publishableAnyOrigin: 'pk_test_northwind_any_origin_page_0001',
  /** sk_test of another organization, every scope */
  other: 'sk_test_globex_server_key_0000000001',
} as const;

export const ALL_SCOPES = [
  'bookings:create',
  'bookings:read',
  'bookings:write',
  'event-types:read',
  'event-types:write',
  'team:read',
  'team:members:read',
  'calendars:read',
  'webhooks:read',
  'webhooks:manage',
];

export const MEMBERS = {
  amara: '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b01',
  jonas: '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b02',
  priya: '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b03',
  otherOrg: '9f000000-0000-4000-8000-000000000001',
} as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SeedJson = any;

export function demoSeed(): SeedJson {
  return JSON.parse(fs.readFileSync(DEMO_PATH, 'utf8'));
}

/** The demo organization plus extra keys, and a second organization for tenancy tests. */
export function testSeed(): SeedJson {
  const seed = demoSeed();
  const northwind = seed.organizations[0];
  northwind.api_keys.push(
    { key: KEYS.live, name: 'Live server key', scopes: ALL_SCOPES },
    { key: KEYS.readOnly, name: 'Read-only key', scopes: ['event-types:read'] },
    { key: KEYS.publishableAnyOrigin, name: 'Any-origin page', scopes: ['event-types:read', 'bookings:create', 'team:read'] },
  );
  seed.organizations.push({
    id: 'org_globex',
    name: 'Globex',
    cancellation_policy: { enabled: false, cutoff_minutes: 0 },
    teams: [{ id: 'team_globex', name: 'Globex sales' }],
    members: [
      {
        id: MEMBERS.otherOrg,
        team_id: 'team_globex',
        name: 'Hank Scorpio',
        email: 'hank@globex.example',
        avatar_url: null,
        role: 'MEMBER',
        skills: ['sales'],
        is_active: true,
        timezone: 'America/Chicago',
        max_bookings_per_day: 5,
        working_hours: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], start: '09:00', end: '17:00' }],
        out_of_office: [],
      },
    ],
    event_types: [
      {
        id: 'et_globex_demo',
        team_id: 'team_globex',
        name: 'Globex demo',
        slug: 'globex-demo',
        description: 'Sales demo',
        duration: 30,
        scheduling_type: 'SOLO',
        requires_confirmation: false,
        workload: { prep: 0, meeting: 30, implementation: 0, admin: 0 },
        custom_fields: [],
      },
    ],
    calendars: [
      {
        id: 'cal_hank_apple',
        userId: MEMBERS.otherOrg,
        teamId: 'team_globex',
        provider: 'APPLE',
        calendarId: 'hank-cal',
        calendarName: 'Home',
        providerEmail: 'hank@globex.example',
        timezone: 'America/Chicago',
        isPrimary: true,
        syncStatus: 'SUCCESS',
        lastSyncAt: '2026-11-20T08:00:00Z',
        supportsWebhooks: false,
      },
    ],
    api_keys: [{ key: KEYS.other, name: 'Globex server key', scopes: ALL_SCOPES }],
  });
  return seed;
}

/** The member ids of a load organization: `${digit}0000000-0000-4000-8000-<n>`, n from 1. */
export const loadHostId = (digit: string, i: number) => `${digit}0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/**
 * An organization sized for load, for the benches and the fault tests: `hosts` members working
 * around the clock (UTC, 1,000 bookings a day), one 15-minute round-robin type `et_<name>`, and a
 * test key with `scopes`. Ids are org_<name>, team_<name>; member ids come from loadHostId(digit, i).
 */
export function loadOrganization(opts: { name: string; digit: string; key: string; hosts?: number; scopes?: string[] }): SeedJson {
  const { name, digit, key } = opts;
  const title = name[0]!.toUpperCase() + name.slice(1);
  return {
    id: `org_${name}`,
    name: title,
    cancellation_policy: { enabled: true, cutoff_minutes: 0 },
    teams: [{ id: `team_${name}`, name: title }],
    members: Array.from({ length: opts.hosts ?? 20 }, (_, i) => ({
      id: loadHostId(digit, i + 1),
      team_id: `team_${name}`,
      name: `Host ${i + 1}`,
      email: `host${i + 1}@${name}.example`,
      avatar_url: null,
      role: 'MEMBER',
      skills: [],
      is_active: true,
      timezone: 'UTC',
      max_bookings_per_day: 1000,
      working_hours: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'], start: '00:00', end: '24:00' }],
      out_of_office: [],
    })),
    event_types: [
      {
        id: `et_${name}`,
        team_id: `team_${name}`,
        name: `${title} call`,
        slug: `${name}-call`,
        description: 'load',
        duration: 15,
        slot_interval: 15,
        minimum_booking_notice: 0,
        scheduling_type: 'ROUND_ROBIN',
        requires_confirmation: false,
        workload: { prep: 0, meeting: 15, implementation: 0, admin: 0 },
        custom_fields: [],
      },
    ],
    calendars: [],
    api_keys: [{ key, name: `${title} key`, scopes: opts.scopes ?? ['bookings:create', 'bookings:read', 'bookings:write'] }],
  };
}
