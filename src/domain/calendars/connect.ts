import { createHmac } from 'node:crypto';
import type { Pool, Tx } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import * as store from '../../db/queries/calendar-sync.ts';
import { meetingsOfCalendar } from '../../db/queries/calendar-writes.ts';
import * as calendars from '../../db/queries/calendars.ts';
import * as members from '../../db/queries/members.ts';
import { NotFound, ValidationError } from '../errors.ts';
import { isMemberId } from '../members/member-id.ts';
import { encryptSecret } from '../webhooks/secrets.ts';
import type { DavEntry } from './caldav.ts';
import { CalDavClient, CalDavError, hrefProp, xmlText } from './caldav.ts';
import { enqueueSync } from './schedule.ts';
import { enqueueCalendarWrites } from './write-back.ts';
import { checkCalendarUrl } from './url-rules.ts';

export interface ConnectionInput {
  url: string;
  username: string;
  password: string;
}

/** HMAC of a password under the storage key: equal passwords compare equal, and nothing is learned from it without the key. */
export function passwordDigest(password: string, key: Buffer): string {
  return createHmac('sha256', key).update(`calendar-password:${password}`).digest('base64url');
}

/**
 * Stores a calendar's connection, the password encrypted, and when it is new or changed (or
 * `renew`: given again, e.g. after NEEDS_REAUTH) resets the calendar to PENDING and enqueues
 * its first sync in the same transaction. A calendar that was waiting for credentials
 * (NEEDS_REAUTH) also gets the write-backs it missed: its meetings are written again, each as it
 * stands now (docs/calendars.md, Write-back).
 */
export async function saveConnection(tx: Tx, calendarId: string, c: ConnectionInput, key: Buffer, renew = false): Promise<boolean> {
  const waited = await store.needsReauth(tx, calendarId);
  const changed = await store.upsertConnection(
    tx,
    {
      calendarId,
      url: c.url,
      username: c.username,
      passwordEncrypted: encryptSecret(c.password, key),
      passwordDigest: passwordDigest(c.password, key),
    },
    renew,
  );
  if (!changed) return false;
  await enqueueSync(tx, calendarId);
  if (waited) await enqueueCalendarWrites(tx, await meetingsOfCalendar(tx, calendarId));
  return true;
}

export interface ConnectInput extends ConnectionInput {
  organizationId: string;
  memberId: string;
  /** The display name (or last path segment) of the calendar to make primary; default the first. */
  primary?: string;
}

export interface DiscoveredCalendar {
  url: string;
  name: string;
}

export interface ConnectResult {
  calendars: { id: string; name: string; url: string; provider: string; isPrimary: boolean }[];
}

const isCalendar = (e: DavEntry) => {
  const rt = e.props.resourcetype;
  return typeof rt === 'object' && rt !== null && 'calendar' in rt;
};

/** A collection's supported components include VEVENT (absent set: any component). */
function takesEvents(e: DavEntry): boolean {
  const set = e.props['supported-calendar-component-set'];
  if (!set || typeof set !== 'object') return true;
  const comps = ((set as Record<string, unknown>).comp as Record<string, unknown>[] | undefined) ?? [];
  return comps.length === 0 || comps.some((c) => String(c['@_name']).toUpperCase() === 'VEVENT');
}

function nameOf(e: DavEntry): string {
  const display = xmlText(e.props.displayname).trim();
  if (display) return display;
  const parts = new URL(e.href).pathname.split('/').filter(Boolean);
  return decodeURIComponent(parts[parts.length - 1] ?? e.href);
}

const COLLECTION_PROPS = '<d:resourcetype/><d:displayname/><c:supported-calendar-component-set/>';

/**
 * The account's event calendars (RFC 4791 §7.1, RFC 5397): the URL's current-user-principal
 * (or, failing that, the server's /.well-known/caldav), its calendar-home-set, and the
 * collections in it that are calendars taking VEVENTs. A URL that is itself such a calendar is
 * just that calendar.
 */
export async function discoverCalendars(client: CalDavClient, raw: string): Promise<DiscoveredCalendar[]> {
  const start = checkCalendarUrl(raw).toString();
  const first = await client.propfind(start, 0, `<d:current-user-principal/>${COLLECTION_PROPS}`);
  const self = first.entries[0];
  if (self && isCalendar(self)) {
    if (!takesEvents(self)) throw new ValidationError('url: this calendar does not hold events (VEVENT)', 'url');
    return [{ url: first.url, name: nameOf(self) }];
  }
  let principal = self ? hrefProp(self.props['current-user-principal'], first.url) : null;
  if (!principal) {
    const wk = await client.propfind(new URL('/.well-known/caldav', start).toString(), 0, '<d:current-user-principal/>');
    principal = wk.entries[0] ? hrefProp(wk.entries[0].props['current-user-principal'], wk.url) : null;
  }
  if (!principal)
    throw new CalDavError('protocol', 'the server names no current-user-principal: give the URL of a calendar collection instead');
  checkCalendarUrl(principal, 'principal');
  const p = await client.propfind(principal, 0, '<c:calendar-home-set/>');
  const home = p.entries[0] ? hrefProp(p.entries[0].props['calendar-home-set'], p.url) : null;
  if (!home) throw new CalDavError('protocol', 'the principal has no calendar-home-set');
  checkCalendarUrl(home, 'calendar-home-set');
  const listing = await client.propfind(home, 1, COLLECTION_PROPS);
  return listing.entries.filter((e) => e.status === 200 && isCalendar(e) && takesEvents(e)).map((e) => ({ url: e.href, name: nameOf(e) }));
}

export interface ConnectDeps {
  db: Pool;
  secretKey: Buffer;
  timeoutMs: number;
}

/**
 * `booking-service calendars connect`: discovers the account's event calendars and records each
 * as a calendar integration of the member (CALDAV, or APPLE for iCloud), the password encrypted,
 * each enqueued for its first sync. Connecting again updates them (matched by collection URL).
 */
export async function connectCalendars(deps: ConnectDeps, input: ConnectInput): Promise<ConnectResult> {
  if (!isMemberId(input.memberId)) throw new ValidationError(`--member: must be a member id (UUID), got "${input.memberId}"`, 'member');
  if (!input.username) throw new ValidationError('--username: required', 'username');
  if (!input.password) throw new ValidationError('password: empty (set the variable named by --password-env)', 'password');
  const url = checkCalendarUrl(input.url);
  const member = await members.findInOrganization(deps.db, input.organizationId, input.memberId.toLowerCase());
  if (!member) throw new NotFound(`member "${input.memberId}" not found in organization "${input.organizationId}"`);
  const client = new CalDavClient({ username: input.username, password: input.password }, { timeoutMs: deps.timeoutMs });
  const found = await discoverCalendars(client, url.toString());
  if (found.length === 0) throw new NotFound('the account has no calendar that holds events');
  let primary = 0;
  if (input.primary !== undefined) {
    const wanted = input.primary.toLowerCase();
    primary = found.findIndex((c) => c.name.toLowerCase() === wanted || c.url.replace(/\/$/, '').toLowerCase().endsWith(`/${wanted}`));
    if (primary < 0) throw new NotFound(`--primary: no calendar named "${input.primary}" (found: ${found.map((c) => c.name).join(', ')})`);
  }
  const provider = /(^|\.)icloud\.com$/i.test(url.hostname) ? 'APPLE' : 'CALDAV';
  return transaction(deps.db, async (tx) => {
    const out: ConnectResult['calendars'] = [];
    await calendars.clearPrimary(tx, member.id, store.SYNCED_PROVIDERS);
    for (const [i, c] of found.entries()) {
      const id = await calendars.upsertConnected(tx, {
        organizationId: input.organizationId,
        userId: member.id,
        teamId: member.team_id,
        provider,
        calendarId: c.url,
        calendarName: c.name,
        providerEmail: input.username.includes('@') ? input.username : null,
        timezone: member.timezone,
        isPrimary: i === primary,
      });
      await saveConnection(tx, id, { url: c.url, username: input.username, password: input.password }, deps.secretKey, true);
      out.push({ id, name: c.name, url: c.url, provider, isPrimary: i === primary });
    }
    return { calendars: out };
  });
}
