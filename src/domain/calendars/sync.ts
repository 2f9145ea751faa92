import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { announceBusyChange } from '../../db/busy-changes.ts';
import type { Db, Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import type { ClaimedCalendar, ParsedResource } from '../../db/queries/calendar-sync.ts';
import * as store from '../../db/queries/calendar-sync.ts';
import * as writes from '../../db/queries/calendar-writes.ts';
import { calendarSyncs } from '../../metrics.ts';
import type { FreeBusyCache } from '../availability/freebusy-cache.ts';
import { decryptSecret } from '../webhooks/secrets.ts';
import type { DavEntry } from './caldav.ts';
import { CalDavClient, CalDavError, escapeXml, etagOf, parseMultistatus, syncTokenOf, xmlText } from './caldav.ts';
import { icsExpander } from './ics/expander.ts';
import { enqueueCalendarWrites } from './write-back.ts';
import { calendarUid, meetingIdsIn } from '../email/enqueue.ts';

export interface SyncDeps {
  db: Pool;
  config: Config;
  now: () => Date;
  log: Logger;
  freebusyCache: FreeBusyCache;
}

export interface SyncOutcome {
  calendarId: string;
  /** SKIPPED: another sync holds the calendar, or it waits for new credentials. */
  status: 'SUCCESS' | 'ERROR' | 'NEEDS_REAUTH' | 'SKIPPED';
  error: string | null;
  /** Events in the calendar's stored resources after the sync, unparseable ones skipped. */
  events: number;
  skipped: number;
  busyBlocks: number;
  requests: number;
  durationMs: number;
  /** Whether the member's busy time changed (and caches were invalidated). */
  changed: boolean;
}

/** A sync holds its calendar this long at most; a worker that died mid-sync frees it then. */
const LEASE_SECONDS = 15 * 60;
const MULTIGET_BATCH = 250;
const DAY_MS = 86_400_000;

/** The busy window of decisions.md §7: the start of yesterday (UTC) to the end of today + horizon days. */
export function syncWindow(now: Date, horizonDays: number): { start: Date; end: Date } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { start: new Date(today - DAY_MS), end: new Date(today + (horizonDays + 1) * DAY_MS) };
}

interface Remote {
  changed: { href: string; etag: string | null; data: string }[];
  deleted: string[];
  syncToken: string | null;
  ctag: string | null;
}

const PROPFIND_STATE = '<d:sync-token/><cs:getctag/><d:resourcetype/>';

/** What changed on the server since the stored token/ctag/ETags: one small request when nothing did. */
async function readRemote(client: CalDavClient, cal: ClaimedCalendar, known: Map<string, string | null>): Promise<Remote> {
  if (cal.sync_token) {
    const incremental = await syncCollection(client, cal.url, cal.sync_token, known);
    if (incremental) return incremental;
  }
  const state = (await client.propfind(cal.url, 0, PROPFIND_STATE)).entries[0];
  if (!state) throw new CalDavError('protocol', 'the calendar collection answered PROPFIND without itself');
  const token = state.props['sync-token'] !== undefined ? xmlText(state.props['sync-token']).trim() || null : null;
  const ctag = state.props.getctag !== undefined ? xmlText(state.props.getctag).trim() || null : null;
  if (!cal.sync_token && cal.ctag && ctag === cal.ctag) return { changed: [], deleted: [], syncToken: null, ctag };
  if (token) {
    // initial sync-collection (empty token): every member with its ETag, and a token for next time
    const full = await syncCollection(client, cal.url, '', known);
    if (full) return { ...full, ctag, deleted: [...known.keys()].filter((h) => !full.seen.has(h)) };
  }
  const listing = await client.propfind(cal.url, 1, '<d:getetag/><d:resourcetype/>');
  const seen = new Set<string>();
  const wanted: { href: string; etag: string | null }[] = [];
  for (const e of listing.entries) {
    if (isCollection(e) || e.status !== 200) continue;
    seen.add(e.href);
    const etag = etagOf(e.props.getetag);
    if (!known.has(e.href) || known.get(e.href) !== etag || etag === null) wanted.push({ href: e.href, etag });
  }
  const deleted = [...known.keys()].filter((h) => !seen.has(h));
  const fetched = await multiget(
    client,
    cal.url,
    wanted.map((w) => w.href),
  );
  return { changed: fetched.found, deleted: [...deleted, ...fetched.missing], syncToken: null, ctag };
}

function isCollection(e: DavEntry): boolean {
  const rt = e.props.resourcetype;
  return typeof rt === 'object' && rt !== null && 'collection' in rt;
}

/**
 * RFC 6578 sync-collection from `token` ('' = initial). Null when the server refuses the token
 * (expired: valid-sync-token precondition); the caller then lists the collection instead.
 */
async function syncCollection(
  client: CalDavClient,
  url: string,
  token: string,
  known: Map<string, string | null>,
): Promise<(Remote & { seen: Set<string> }) | null> {
  const body =
    `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${escapeXml(token)}</d:sync-token><d:sync-level>1</d:sync-level>` +
    '<d:prop><d:getetag/></d:prop></d:sync-collection>';
  let res;
  try {
    res = await client.report(url, 0, body);
  } catch (err) {
    // 403 with DAV:valid-sync-token is an expired token, not refused credentials
    if (err instanceof CalDavError && err.kind === 'auth' && token !== '') return null;
    throw err;
  }
  if (res.status !== 207) {
    if (token !== '' && [400, 409, 412].includes(res.status)) return null;
    if (token === '' && [400, 403, 404, 405, 415, 501].includes(res.status)) return null;
    throw new CalDavError('server', `sync-collection: expected 207 Multi-Status, got HTTP ${res.status}`, res.status);
  }
  const entries = parseMultistatus(res.text, res.url);
  const seen = new Set<string>();
  const deleted: string[] = [];
  const wanted: string[] = [];
  const base = new URL(url).toString();
  for (const e of entries) {
    if (e.href === base || e.href === `${base}/`) continue;
    if (e.status === 404) {
      deleted.push(e.href);
      continue;
    }
    if (e.status !== 200 || isCollection(e)) continue;
    seen.add(e.href);
    const etag = etagOf(e.props.getetag);
    if (!known.has(e.href) || known.get(e.href) !== etag || etag === null) wanted.push(e.href);
  }
  const fetched = await multiget(client, url, wanted);
  return { changed: fetched.found, deleted: [...deleted, ...fetched.missing], syncToken: syncTokenOf(res.text), ctag: null, seen };
}

/** calendar-multiget of the given resources, in batches; those gone meanwhile come back as missing. */
async function multiget(client: CalDavClient, url: string, hrefs: readonly string[]) {
  const found: { href: string; etag: string | null; data: string }[] = [];
  const missing: string[] = [];
  for (let i = 0; i < hrefs.length; i += MULTIGET_BATCH) {
    const part = hrefs.slice(i, i + MULTIGET_BATCH);
    const body =
      '<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>' +
      part.map((h) => `<d:href>${escapeXml(new URL(h).pathname)}</d:href>`).join('') +
      '</c:calendar-multiget>';
    const res = await client.report(url, 1, body);
    if (res.status !== 207)
      throw new CalDavError('server', `calendar-multiget: expected 207 Multi-Status, got HTTP ${res.status}`, res.status);
    const got = new Set<string>();
    for (const e of parseMultistatus(res.text, res.url)) {
      if (e.status !== 200 || e.props['calendar-data'] === undefined) continue;
      got.add(e.href);
      found.push({ href: e.href, etag: etagOf(e.props.getetag), data: xmlText(e.props['calendar-data']) });
    }
    for (const h of part) if (!got.has(h)) missing.push(h);
  }
  return { found, missing };
}

/**
 * The UIDs in these resources that are meetings of this service (decisions §7: events the service
 * wrote itself do not count twice): its write-back carries X-BOOKING-ID, but the invitation a host
 * was emailed, added to a calendar by their client, has only the meeting's UID. Only UIDs of the
 * organization's own bookings count: another installation's meeting with a UID of the same shape
 * is a real meeting.
 */
async function ownMeetingUids(db: Db, organizationId: string, texts: readonly string[]): Promise<Set<string>> {
  const ids = await store.existingBookingIds(db, organizationId, texts.flatMap(meetingIdsIn));
  return new Set(ids.map(calendarUid));
}

/** The reason a sync failed, as the calendar's syncError shows it (never a credential). */
function reasonOf(err: unknown): { status: 'ERROR' | 'NEEDS_REAUTH'; reason: string } {
  if (err instanceof CalDavError) return { status: err.kind === 'auth' ? 'NEEDS_REAUTH' : 'ERROR', reason: err.message };
  return { status: 'ERROR', reason: `sync failed: ${(err as Error).message ?? 'unknown error'}` };
}

/**
 * Syncs one connected calendar now (decisions.md §7): claims it (never two syncs of one
 * calendar at once, across processes), reads what changed from the server outside any
 * transaction, then replaces the changed resources' busy blocks in one transaction, only if the
 * claim still holds. A failure leaves the busy time of the last success in force. A sync that
 * changes the member's busy time invalidates their cached availability and free/busy in every
 * process (NOTIFY at commit, and the shared cache directly).
 */
export async function syncCalendar(deps: SyncDeps, calendarId: string): Promise<SyncOutcome> {
  const began = Date.now();
  const lease = randomBytes(12).toString('base64url');
  const cal = await transaction(deps.db, (tx) => store.claimSync(tx, calendarId, lease, LEASE_SECONDS));
  const outcome = (status: SyncOutcome['status'], error: string | null, extra: Partial<SyncOutcome> = {}): SyncOutcome => {
    // calendar_syncs_total counts the syncs that ran; a skipped one read nothing
    if (status !== 'SKIPPED') calendarSyncs.inc({ status });
    return {
      calendarId,
      status,
      error,
      events: 0,
      skipped: 0,
      busyBlocks: 0,
      requests: 0,
      durationMs: Date.now() - began,
      changed: false,
      ...extra,
    };
  };
  if (!cal) return outcome('SKIPPED', 'not connected, already syncing, or waiting for new credentials');
  let client: CalDavClient | undefined;
  try {
    client = new CalDavClient(
      { username: cal.username, password: decryptSecret(cal.password_encrypted, deps.config.webhookSecretKey) },
      {
        timeoutMs: deps.config.calendarRequestTimeoutMs,
      },
    );
    const window = syncWindow(deps.now(), deps.config.calendarSyncHorizonDays);
    const known = new Map((await store.resourceEtags(deps.db, calendarId)).map((r) => [r.href, r.etag]));
    const remote = await readRemote(client, cal, known);
    const ownUids = await ownMeetingUids(
      deps.db,
      cal.organization_id,
      remote.changed.map((r) => r.data),
    );
    // expanding events is CPU work, kept off the thread that answers the API (icsExpander)
    const expanded = await icsExpander.expand(remote.changed, window, cal.member_timezone, ownUids);
    const changed: ParsedResource[] = expanded.map((r, i) => ({ ...r, etag: remote.changed[i].etag, data: remote.changed[i].data }));
    const sameWindow = cal.window_start?.getTime() === window.start.getTime() && cal.window_end?.getTime() === window.end.getTime();
    // blocks expanded for another owner or zone (a seed moved the calendar or changed the zone)
    const sameOwner = cal.expanded_for === cal.user_id && cal.expanded_timezone === cal.member_timezone;
    // whose busy time a change moves: the owner, and the member the blocks were expanded for
    const owners = [...new Set([cal.user_id, ...(cal.expanded_for ? [cal.expanded_for] : [])])];
    const result = await transaction(deps.db, async (tx) => {
      if (!(await store.holdsLease(tx, calendarId, lease))) return null;
      const replaced = await store.replaceResources(tx, calendarId, cal.user_id, changed, remote.deleted);
      let removed = replaced.removed;
      let added = replaced.added;
      if (!sameWindow || !sameOwner) {
        // a new day moved the window, or the owner or its zone changed: the resources kept are
        // expanded again from their stored text
        const kept = await store.resourceTexts(
          tx,
          calendarId,
          changed.map((r) => r.href),
        );
        const keptOwn = await ownMeetingUids(
          tx,
          cal.organization_id,
          kept.map((r) => r.data),
        );
        const again = await store.reexpand(
          tx,
          calendarId,
          cal.user_id,
          await icsExpander.expand(kept, window, cal.member_timezone, keptOwn),
        );
        removed += again.removed;
        added += again.added;
      }
      const totals = await store.finishSync(tx, calendarId, {
        syncToken: remote.syncToken,
        ctag: remote.ctag,
        expandedFor: cal.user_id,
        expandedTimezone: cal.member_timezone,
        windowStart: window.start,
        windowEnd: window.end,
        at: deps.now(),
      });
      // the server answers again: meetings whose write to it failed for good are written once more
      await enqueueCalendarWrites(tx, await writes.claimFailedWrites(tx, calendarId));
      const busyChanged = removed > 0 || added > 0;
      if (busyChanged) await announceBusyChange(tx, owners);
      return { totals, busyChanged };
    });
    if (!result) return outcome('SKIPPED', 'the sync lost its claim on the calendar', { requests: client.requests });
    if (result.busyChanged) await deps.freebusyCache.invalidate(owners);
    return outcome('SUCCESS', null, {
      events: result.totals.events,
      skipped: result.totals.skipped,
      busyBlocks: result.totals.blocks,
      requests: client.requests,
      changed: result.busyChanged,
    });
  } catch (err) {
    const { status, reason } = reasonOf(err);
    deps.log.warn({ calendarId, status, reason }, 'calendar sync failed');
    await transaction(deps.db, async (tx) => {
      if (await store.holdsLease(tx, calendarId, lease)) await store.failSync(tx, calendarId, status, reason);
    });
    return outcome(status, reason, { requests: client?.requests ?? 0 });
  }
}
