import { XMLParser } from 'fast-xml-parser';
import { request } from 'undici';
import { checkCalendarUrl } from './url-rules.ts';

/**
 * A small CalDAV client (RFC 4791, RFC 6578) over undici: PROPFIND, REPORT (calendar-multiget,
 * sync-collection), GET, PUT and DELETE with Basic authentication, each request under its own
 * deadline. It knows nothing of the database; sync.ts and write-back.ts drive it.
 */

export type CalDavFailure = 'auth' | 'timeout' | 'unreachable' | 'server' | 'protocol';

/** A failed exchange. `kind` decides the calendar's status: auth → NEEDS_REAUTH, else ERROR. The message never holds credentials. */
export class CalDavError extends Error {
  readonly kind: CalDavFailure;
  readonly status: number | undefined;
  constructor(kind: CalDavFailure, message: string, status?: number) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

export interface CalDavCredentials {
  username: string;
  password: string;
}

export interface CalDavResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One <response> of a multistatus: its href (absolute URL), its status, and the props found (200). */
export interface DavEntry {
  href: string;
  status: number;
  props: Record<string, unknown>;
}

const MAX_REDIRECTS = 5;
const MAX_BODY_BYTES = 256 * 1024 * 1024;

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  // Entities are decoded by xmlText below, for the few values read: no DOCTYPE expansion at all,
  // and no expansion budget for a 10,000-event answer to exhaust.
  processEntities: false,
  htmlEntities: false,
  trimValues: false,
  isArray: (name) => name === 'response' || name === 'propstat' || name === 'href' || name === 'comp',
});

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * An XML text node's value: entities and character references decoded. NUL, which XML forbids
 * and PostgreSQL text cannot hold, is dropped, whether sent raw or as a reference: one hostile
 * event must not make a whole calendar unstorable.
 */
export function xmlText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return xmlText((v as Record<string, unknown>)['#text']);
  return String(v)
    .replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e] ?? m;
    })
    .replace(/\0/g, '');
}

function statusOf(line: unknown): number {
  const m = /HTTP\/\S+\s+(\d{3})/.exec(xmlText(line));
  return m ? Number(m[1]) : 0;
}

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`);
}

function describe(url: string): string {
  // origin and path only: a query string could carry something secret
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'the calendar server';
  }
}

export class CalDavClient {
  private readonly authorization: string;
  private readonly timeoutMs: number;
  /** Requests sent so far (the incremental-sync test and the benchmark count them). */
  requests = 0;

  constructor(creds: CalDavCredentials, opts: { timeoutMs: number }) {
    this.authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`, 'utf8').toString('base64')}`;
    this.timeoutMs = opts.timeoutMs;
  }

  /**
   * One request, following redirects (PROPFIND on /.well-known/caldav) with the same method,
   * each hop checked against the URL rules. Throws CalDavError for network failures, timeouts,
   * 401/403 and 5xx; other statuses are the caller's to judge.
   */
  async send(
    method: string,
    url: string,
    opts: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<CalDavResponse & { url: string }> {
    let target = url;
    for (let hop = 0; ; hop++) {
      const res = await this.once(method, target, opts);
      const location = res.headers.location;
      if ([301, 302, 303, 307, 308].includes(res.status) && typeof location === 'string' && hop < MAX_REDIRECTS) {
        target = checkCalendarUrl(new URL(location, target).toString(), 'redirect').toString();
        continue;
      }
      return { ...res, url: target };
    }
  }

  private async once(method: string, url: string, opts: { headers?: Record<string, string>; body?: string }): Promise<CalDavResponse> {
    this.requests++;
    const signal = AbortSignal.timeout(this.timeoutMs);
    const where = `${method} ${describe(url)}`;
    let res;
    try {
      res = await request(url, {
        method: method as 'GET',
        headers: {
          authorization: this.authorization,
          ...(opts.body !== undefined ? { 'content-type': 'application/xml; charset=utf-8' } : {}),
          ...opts.headers,
        },
        body: opts.body,
        signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (err) {
      throw this.networkError(err, where, signal);
    }
    let text: string;
    try {
      const length = Number(res.headers['content-length'] ?? 0);
      if (length > MAX_BODY_BYTES) throw new CalDavError('protocol', `${where}: answer of ${length} bytes is too large`);
      text = await res.body.text();
    } catch (err) {
      if (err instanceof CalDavError) throw err;
      throw this.networkError(err, where, signal);
    }
    const status = res.statusCode;
    if (status === 401 || status === 403)
      throw new CalDavError('auth', `${where}: HTTP ${status} (the server refused the credentials)`, status);
    if (status >= 500) throw new CalDavError('server', `${where}: HTTP ${status}`, status);
    return { status, headers: res.headers, text };
  }

  private networkError(err: unknown, where: string, signal: AbortSignal): CalDavError {
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = e.code ?? e.cause?.code;
    if (signal.aborted || e.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new CalDavError('timeout', `${where}: no answer within ${this.timeoutMs / 1000} s`);
    }
    return new CalDavError('unreachable', `${where}: ${code ?? e.message ?? 'connection failed'}`);
  }

  /** PROPFIND with a body of <prop> children; the multistatus entries. */
  async propfind(url: string, depth: 0 | 1, props: string): Promise<{ entries: DavEntry[]; url: string }> {
    const body = `<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/"><d:prop>${props}</d:prop></d:propfind>`;
    const res = await this.send('PROPFIND', url, { headers: { depth: String(depth) }, body });
    if (res.status !== 207)
      throw new CalDavError('server', `PROPFIND ${describe(res.url)}: expected 207 Multi-Status, got HTTP ${res.status}`, res.status);
    return { entries: parseMultistatus(res.text, res.url), url: res.url };
  }

  /** REPORT; the raw answer (sync-collection needs its status to see an expired token). */
  report(url: string, depth: 0 | 1, body: string): Promise<CalDavResponse & { url: string }> {
    return this.send('REPORT', url, { headers: { depth: String(depth) }, body: `<?xml version="1.0" encoding="utf-8"?>\n${body}` });
  }
}

/** The <response> entries of a multistatus document, hrefs made absolute against `base`. */
export function parseMultistatus(text: string, base: string): DavEntry[] {
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(text) as Record<string, unknown>;
  } catch {
    // the parser's message quotes the answer: syncError names the URL and nothing the server wrote
    throw new CalDavError('protocol', `unparseable XML answer from ${describe(base)}`);
  }
  const ms = doc.multistatus as Record<string, unknown> | undefined;
  if (!ms || typeof ms !== 'object') throw new CalDavError('protocol', `answer from ${describe(base)} is not a DAV multistatus`);
  const out: DavEntry[] = [];
  for (const r of (ms.response as Record<string, unknown>[] | undefined) ?? []) {
    const hrefs = (r.href as unknown[] | undefined) ?? [];
    if (hrefs.length === 0) continue;
    const href = new URL(xmlText(hrefs[0]).trim(), base).toString();
    const props: Record<string, unknown> = {};
    let status = r.status !== undefined ? statusOf(r.status) : 0;
    for (const ps of (r.propstat as Record<string, unknown>[] | undefined) ?? []) {
      const s = statusOf(ps.status);
      if (s === 200 && ps.prop && typeof ps.prop === 'object') Object.assign(props, ps.prop);
      if (status === 0 || s === 200) status = s;
    }
    out.push({ href, status, props });
  }
  return out;
}

/** The first <href> inside a property (current-user-principal, calendar-home-set), absolute. */
export function hrefProp(value: unknown, base: string): string | null {
  if (!value || typeof value !== 'object') return null;
  const hrefs = (value as Record<string, unknown>).href as unknown[] | undefined;
  if (!hrefs || hrefs.length === 0) return null;
  return new URL(xmlText(hrefs[0]).trim(), base).toString();
}

/** The multistatus's top-level <sync-token>. */
export function syncTokenOf(text: string): string | null {
  const doc = parser.parse(text) as Record<string, Record<string, unknown> | undefined>;
  const token = doc.multistatus?.['sync-token'];
  return token === undefined ? null : xmlText(token).trim() || null;
}

/** An ETag as stored: the header or getetag value, quotes kept (If-Match wants them). */
export function etagOf(v: unknown): string | null {
  const s = xmlText(v).trim();
  return s === '' ? null : s;
}
