import assert from 'node:assert/strict';
import pino from 'pino';
import type { FreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import { MemoryFreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import type { SyncOutcome } from '../../src/domain/calendars/sync.ts';
import { syncCalendar } from '../../src/domain/calendars/sync.ts';
import type { TestApp } from './app.ts';
import type { SeedJson } from './fixtures.ts';
import { KEYS, MEMBERS, testSeed } from './fixtures.ts';

/** One VEVENT in UTC, as a calendar client would store it (CRLF lines). */
export function vevent(uid: string, start: string, end: string, extra: string[] = []): string {
  const utc = (s: string) => s.replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test//Calendar//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20261101T000000Z',
    `DTSTART:${utc(start)}`,
    `DTEND:${utc(end)}`,
    'SUMMARY:Dentist',
    ...extra,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** An all-day event (DATE values, read in the member's zone) from `day` to `nextDay`, YYYYMMDD. */
export function allDayEvent(uid: string, day: string, nextDay: string): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20261101T000000Z',
    `DTSTART;VALUE=DATE:${day}`,
    `DTEND;VALUE=DATE:${nextDay}`,
    'SUMMARY:Offsite',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** A seed file's SOLO event type of one host: 30 min on a 30 min grid, no notice, no buffers, no fields. */
export function soloType(t: { id: string; name: string; slug: string; host: string; team?: string; requiresConfirmation?: boolean }) {
  return {
    id: t.id,
    team_id: t.team ?? 'team_advisors',
    name: t.name,
    slug: t.slug,
    duration: 30,
    slot_interval: 30,
    minimum_booking_notice: 0,
    scheduling_type: 'SOLO',
    requires_confirmation: t.requiresConfirmation ?? false,
    workload: { prep: 0, meeting: 30, implementation: 0, admin: 0 },
    custom_fields: [],
    host_ids: [t.host],
  };
}

/** A SOLO event type hosted by Amara alone: 30 min on a 30 min grid, no notice, no buffers. */
export const AMARA_TYPE = 'et_amara_solo';

/**
 * The test seed plus Amara's event type and, for each given calendar, a CALDAV calendar with a
 * connection (Amara's `cal_amara_caldav` is her primary).
 */
export function calendarSeed(
  connections: { id: string; member?: string; url: string; username: string; password: string; primary?: boolean }[],
): SeedJson {
  const seed = testSeed();
  const org = seed.organizations[0];
  org.event_types.push({
    ...soloType({ id: AMARA_TYPE, name: 'Amara call', slug: 'amara-call', host: MEMBERS.amara }),
    description: 'A call with Amara',
  });
  for (const c of connections) {
    org.calendars.push({
      id: c.id,
      userId: c.member ?? MEMBERS.amara,
      teamId: 'team_advisors',
      provider: 'CALDAV',
      calendarId: c.url,
      calendarName: c.id,
      providerEmail: null,
      timezone: 'Europe/London',
      isPrimary: c.primary ?? true,
      connection: { url: c.url, username: c.username, password: c.password },
    });
  }
  return seed;
}

/**
 * Syncs a calendar as a worker process would, with a cache of its own (another process's) unless
 * given, and returns once the app has heard the sync's announcement (TestApp.settle).
 */
export async function syncNow(t: TestApp, calendarId: string, cache: FreeBusyCache = new MemoryFreeBusyCache()): Promise<SyncOutcome> {
  const outcome = await syncCalendar(
    { db: t.db.pool, config: t.config, now: () => new Date(t.clock.now), log: pino({ level: 'silent' }), freebusyCache: cache },
    calendarId,
  );
  await t.settle();
  return outcome;
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** iCalendar text with its folded lines joined (RFC 5545 §3.1), for matching whole properties. */
export const unfolded = (text: string) => text.replace(/\r\n[ \t]/g, '');

/** A live booking of Amara's event type at `time`, asserted 201; its id. */
export async function bookAmara(t: TestApp, time: string): Promise<string> {
  const res = await t.request('POST', '/v1/bookings', {
    key: KEYS.live,
    body: { event_type_id: AMARA_TYPE, requested_time: time, attendee: { name: 'Ada Lovelace', email: 'ada@example.com' } },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.booking.id as string;
}

/** Waits until the live booking `id` has been routed (SCHEDULED) by the worker. */
export function routed(t: TestApp, id: string): Promise<boolean> {
  return waitFor(
    `routing of ${id}`,
    async () => (await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.live })).body.booking.status === 'SCHEDULED',
  );
}
