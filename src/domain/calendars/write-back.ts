import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Pool, Tx } from '../../db/pool.ts';
import type { MeetingState } from '../../db/queries/calendar-writes.ts';
import * as writes from '../../db/queries/calendar-writes.ts';
import { enqueue } from '../../db/jobs.ts';
import { calendarUid, meetingIdsIn } from '../email/enqueue.ts';
import { decryptSecret } from '../webhooks/secrets.ts';
import { CalDavClient, CalDavError } from './caldav.ts';
import { renderCalendarEvent } from './event-ics.ts';

/** The job that brings a meeting's events in its hosts' calendars up to date (src/jobs/tasks/write-calendar-event.ts). */
export const WRITE_CALENDAR_TASK = 'write-calendar-event' as const;

export interface WritePayload {
  /** The first booking of the meeting's reschedule chain: names the meeting and its UID. */
  rootBookingId: string;
}

/**
 * Enqueues, in the caller's transaction, the write-back of these bookings' meetings: one job per
 * meeting, in a queue of its own (graphile-worker runs a queue's jobs one at a time, in order),
 * so the writes of one booking never overtake each other. Bookings whose hosts have no connected
 * primary calendar, and that were never written anywhere, enqueue nothing.
 */
export async function enqueueCalendarWrites(tx: Tx, bookingIds: readonly string[]): Promise<void> {
  if (bookingIds.length === 0) return;
  for (const { root } of await writes.meetingsToWrite(tx, bookingIds)) {
    const payload: WritePayload = { rootBookingId: root };
    await enqueue(tx, WRITE_CALENDAR_TASK, payload, { queueName: `calendar-write:${root}`, maxAttempts: 25 });
  }
}

export interface WriteDeps {
  db: Pool;
  config: Config;
  now: () => Date;
  log: Logger;
}

/** Statuses whose meeting stands in the hosts' calendars; DRAFT is not routed yet, CANCELLED is deleted. */
const SHOWN = new Set(['SCHEDULED', 'RESCHEDULED', 'PENDING_CONFIRMATION', 'COMPLETED', 'NO_SHOW']);

function collectionUrl(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

export function resourceUrl(collection: string, uid: string): string {
  return new URL(`${encodeURIComponent(uid)}.ics`, collectionUrl(collection)).toString();
}

function eventText(m: MeetingState, hostIndex: number, uid: string, sequence: number, stamp: Date): string {
  const host = m.hosts[hostIndex];
  const others = m.hosts.filter((_, i) => i !== hostIndex);
  return renderCalendarEvent({
    uid,
    bookingId: m.id,
    sequence,
    stamp,
    start: m.start_time,
    end: m.end_time,
    status: m.status === 'PENDING_CONFIRMATION' ? 'TENTATIVE' : 'CONFIRMED',
    // a test-mode booking's event says so, as its emails' subjects do (src/domain/email/render.ts)
    summary: `${m.mode === 'test' ? '[Test] ' : ''}${m.event_type_name ?? 'Meeting'} with ${m.attendee.name}`,
    description: [
      m.status === 'PENDING_CONFIRMATION' ? 'Awaiting your confirmation.' : '',
      m.event_type_description ?? '',
      `Attendee: ${m.attendee.name} <${m.attendee.email}>`,
      `Booking: ${m.id}`,
    ]
      .filter(Boolean)
      .join('\n'),
    organizer: { name: host.name, email: host.email },
    attendees: [{ name: m.attendee.name, email: m.attendee.email }, ...others.map((o) => ({ name: o.name, email: o.email }))],
  });
}

/**
 * The resource's current ETag and whether it is the meeting's, or null when absent. The meeting's:
 * the service wrote it (X-BOOKING-ID), or it is a copy carrying the meeting's UID (the invitation
 * a host's client filed), which the busy-time reader counts as the meeting's too (meetingIdsIn).
 */
async function current(client: CalDavClient, href: string, rootId: string): Promise<{ etag: string | null; ours: boolean } | null> {
  const res = await client.send('GET', href);
  if (res.status === 404 || res.status === 410) return null;
  if (res.status !== 200) throw new CalDavError('server', `GET ${new URL(href).pathname}: HTTP ${res.status}`, res.status);
  const etag = typeof res.headers.etag === 'string' ? res.headers.etag : null;
  return { etag, ours: /^X-BOOKING-ID:/m.test(res.text) || meetingIdsIn(res.text).includes(rootId) };
}

/** PUT conditionally: If-None-Match: * for a new event, If-Match for ours; a stale condition is looked up and tried once more. */
async function put(client: CalDavClient, href: string, rootId: string, body: string, etag: string | null): Promise<string | null> {
  let condition: Record<string, string> = etag ? { 'if-match': etag } : { 'if-none-match': '*' };
  for (let attempt = 0; attempt < 3; attempt++) {
    const res = await client.send('PUT', href, { headers: { 'content-type': 'text/calendar; charset=utf-8', ...condition }, body });
    if (res.status >= 200 && res.status < 300) {
      const tag = res.headers.etag;
      return typeof tag === 'string' ? tag : ((await current(client, href, rootId))?.etag ?? null);
    }
    if (res.status !== 412 && res.status !== 404)
      throw new CalDavError('server', `PUT ${new URL(href).pathname}: HTTP ${res.status}`, res.status);
    // a retry after a write that landed but was not recorded, or an edit in the host's calendar
    const now = await current(client, href, rootId);
    if (now && !now.ours)
      throw new CalDavError('server', `PUT ${new URL(href).pathname}: an event that is not the service's holds this name`);
    condition = now?.etag ? { 'if-match': now.etag } : { 'if-none-match': '*' };
  }
  throw new CalDavError('server', `PUT ${new URL(href).pathname}: the event kept changing while it was written`);
}

async function remove(client: CalDavClient, href: string, rootId: string, etag: string | null): Promise<void> {
  let condition: Record<string, string> = etag ? { 'if-match': etag } : {};
  for (let attempt = 0; attempt < 3; attempt++) {
    const res = await client.send('DELETE', href, { headers: condition });
    if ((res.status >= 200 && res.status < 300) || res.status === 404 || res.status === 410) return;
    if (res.status !== 412) throw new CalDavError('server', `DELETE ${new URL(href).pathname}: HTTP ${res.status}`, res.status);
    const now = await current(client, href, rootId);
    if (!now) return;
    condition = now.etag ? { 'if-match': now.etag } : {};
  }
  throw new CalDavError('server', `DELETE ${new URL(href).pathname}: the event kept changing while it was deleted`);
}

export interface WriteAttempt {
  /** graphile-worker's attempt number (1 = first). */
  attempt: number;
}

/**
 * Brings the meeting's events in line with the booking it shows now (decisions.md §7): each
 * assigned host's primary connected calendar holds `<UID>.ics` (CONFIRMED, or TENTATIVE while
 * PENDING_CONFIRMATION) at the booking's time and with its attendee, and every other calendar
 * it was written to has it deleted (cancel, or a host change). Each calendar's outcome is
 * recorded as it happens, so a retry resumes. 401/403 make that calendar NEEDS_REAUTH (not
 * retried); other failures are thrown for graphile-worker's backoff, and on the last attempt
 * (CALENDAR_WRITE_ATTEMPTS) the calendar shows ERROR with a syncError naming the booking.
 */
export async function writeMeeting(deps: WriteDeps, rootId: string, at: WriteAttempt): Promise<void> {
  const meeting = await writes.meetingState(deps.db, rootId);
  if (!meeting) {
    await writes.clearWriteFailures(deps.db, rootId);
    return;
  }
  if (meeting.status === 'DRAFT') return;
  const uid = calendarUid(rootId);
  const shown = SHOWN.has(meeting.status);
  const targets = shown
    ? await writes.primaryCalendars(
        deps.db,
        meeting.hosts.map((h) => h.id),
      )
    : [];
  const existing = new Map((await writes.writesOf(deps.db, rootId)).map((w) => [w.calendar_id, w]));
  // SEQUENCE grows with every write of the meeting, whichever calendar held it before (a new host's
  // calendar, a new primary): an event must never go back to an older one (RFC 5545)
  const lastSequence = Math.max(-1, ...[...existing.values()].map((w) => w.sequence));
  // resources written in this run: a calendar left behind that names the same resource (two
  // integrations of one collection, say a shared team calendar) must not delete what was just written
  const written = new Set<string>();
  const failures: { calendarId: string; message: string }[] = [];
  const key = deps.config.webhookSecretKey;
  const timeoutMs = deps.config.calendarRequestTimeoutMs;
  const stamp = deps.now();

  const attempt = async (calendarId: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (err) {
      if (err instanceof CalDavError && err.kind === 'auth') {
        await writes.needsReauth(deps.db, calendarId, `writing booking ${meeting.id}: ${err.message}`);
        return;
      }
      failures.push({ calendarId, message: err instanceof Error ? err.message : String(err) });
    }
  };

  for (const t of targets) {
    if (t.sync_status === 'NEEDS_REAUTH') continue;
    const hostIndex = meeting.hosts.findIndex((h) => h.id === t.user_id);
    const before = existing.get(t.calendar_id);
    existing.delete(t.calendar_id);
    await attempt(t.calendar_id, async () => {
      const client = new CalDavClient({ username: t.username, password: decryptSecret(t.password_encrypted, key) }, { timeoutMs });
      const href = resourceUrl(t.url, uid);
      const sequence = lastSequence + 1;
      const etag = await put(
        client,
        href,
        rootId,
        eventText(meeting, hostIndex, uid, sequence, stamp),
        before?.href === href ? before.etag : null,
      );
      written.add(href);
      await writes.recordWrite(deps.db, { root: rootId, calendarId: t.calendar_id, href, etag, sequence });
    });
  }
  // written before, no longer a target: the booking was cancelled, or the host changed
  for (const w of existing.values()) {
    if (!w.url || !w.username || !w.password_encrypted || written.has(w.href)) {
      await writes.forgetWrite(deps.db, rootId, w.calendar_id);
      continue;
    }
    if (w.sync_status === 'NEEDS_REAUTH') continue;
    await attempt(w.calendar_id, async () => {
      const client = new CalDavClient({ username: w.username!, password: decryptSecret(w.password_encrypted!, key) }, { timeoutMs });
      await remove(client, w.href, rootId, w.etag);
      await writes.forgetWrite(deps.db, rootId, w.calendar_id);
    });
  }
  if (failures.length === 0) {
    await writes.clearWriteFailures(deps.db, rootId);
    return;
  }
  if (at.attempt >= deps.config.calendarWriteAttempts) {
    for (const f of failures) {
      const reason = `writing booking ${meeting.id} to this calendar failed after ${at.attempt} attempts: ${f.message}`;
      // written again after the calendar's next successful sync (syncCalendar)
      await writes.failWrite(deps.db, f.calendarId, rootId, reason);
      deps.log.error({ bookingId: meeting.id, calendarId: f.calendarId, reason }, 'calendar write-back failed for good');
    }
    return;
  }
  throw new Error(`calendar write-back of booking ${meeting.id}: ${failures.map((f) => f.message).join('; ')}`);
}
