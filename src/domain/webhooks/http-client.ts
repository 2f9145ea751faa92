import fs from 'node:fs';
import type { LookupAddress } from 'node:dns';
import tls from 'node:tls';
import { Agent, request } from 'undici';
import { refusedAddressReason } from './address-rules.ts';
import { resolveHost } from './resolver.ts';
import { checkWebhookUrl } from './url-rules.ts';

/** The whole attempt (connect, TLS, request, response headers and the body we read). */
export const ATTEMPT_TIMEOUT_MS = 5000;
/**
 * A lookup within an attempt ends this much before the attempt does, so that a name whose
 * servers do not answer is recorded as `dns: …`. With the same deadline for both, the attempt's
 * timer (armed first) fired first whenever the process was late by more than the resolver's own
 * tries take, and the record said "timeout" with no word of DNS.
 */
const LOOKUP_MARGIN_MS = 500;
/** We keep at most this much of a response body, for the delivery record's error text. */
export const RESPONSE_BODY_CAP = 4096;

export interface AttemptRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

export interface DeliveryClientOptions {
  allowPrivate: boolean;
  /** DNS_SERVERS; unset: the system's name servers. */
  dnsServers?: readonly string[] | undefined;
  /** PEM file of an extra CA to trust besides the system ones (self-signed test receivers). */
  caFile?: string | undefined;
  timeoutMs?: number;
}

export interface DeliveryClient {
  send(req: AttemptRequest): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The connection-time lookup: resolves with our resolver, refuses the host if any address is
 * not allowed, and hands net.connect only addresses it checked. There is no second resolution
 * between the check and the connection, so DNS rebinding has no window.
 */
function checkedLookup(allowPrivate: boolean, dnsServers: readonly string[] | undefined, deadlineMs: number) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolveHost(hostname, { servers: dnsServers, deadlineMs }).then(
      (addresses) => {
        const refused = allowPrivate ? undefined : addresses.find((a) => refusedAddressReason(a) !== null);
        if (addresses.length === 0 || refused) {
          const err: NodeJS.ErrnoException = new Error(
            refused ? `${hostname} resolves to ${refused}, which ${refusedAddressReason(refused)}` : `${hostname} does not resolve`,
          );
          err.code = 'EWEBHOOKTARGET';
          callback(err, '');
          return;
        }
        const list = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (options.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** An attempt's error as recorded on the delivery; `timeoutMs` is the attempt's own deadline. */
function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `timeout: no complete response within ${timeoutMs / 1000} s`;
  if (e.code === 'EDNSTIMEOUT' || e.code === 'ETIMEOUT') return `dns: ${e.message}`;
  const cause = e.cause?.message ?? '';
  return [e.code ?? e.cause?.code, e.message, cause && cause !== e.message ? cause : ''].filter(Boolean).join(': ').slice(0, 500);
}

/** One agent per worker process: connections are kept alive and pooled per host. */
export function createDeliveryClient(opts: DeliveryClientOptions): DeliveryClient {
  const timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const lookupMs = Math.max(timeoutMs - LOOKUP_MARGIN_MS, timeoutMs / 2);
  // One TLS context for every connection. Given `ca` instead, each new connection would build its
  // own context, parsing the 140-odd system roots again (12 ms of CPU) and holding their native
  // memory until a garbage collection that the tiny JS wrapper never prompts: 1,000 connections
  // left 800 MB of malloc'd memory behind.
  const secureContext = opts.caFile
    ? tls.createSecureContext({ ca: [...tls.rootCertificates, fs.readFileSync(opts.caFile, 'utf8')] })
    : undefined;
  const agent = new Agent({
    connect: {
      lookup: checkedLookup(opts.allowPrivate, opts.dnsServers, lookupMs),
      timeout: timeoutMs,
      ...(secureContext ? { secureContext } : {}),
    } as Agent.Options['connect'],
    keepAliveTimeout: 10_000,
    connections: 64,
  });

  /**
   * One attempt, bounded by `timeoutMs` from its start whatever is slow (DNS included): at the
   * deadline the request is aborted and the attempt ends as a timeout, even if a lookup or a
   * connection is still under way (it is abandoned; its late result is ignored).
   */
  async function send(req: AttemptRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // A timer cleared when the attempt ends (AbortSignal.timeout would stay armed for the full
    // 5 s after every attempt and build an abort error each time it fired).
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const err = new DOMException('attempt timed out', 'TimeoutError');
        abort.abort(err);
        reject(err);
      }, timeoutMs);
    });
    const attempt = async (): Promise<AttemptOutcome> => {
      // The stored URL passed these rules when saved; they are checked again at every attempt
      // (decisions.md §5) because the resolution may differ now, even when a kept-alive
      // connection is reused. A new connection only goes to addresses checkedLookup checked.
      const url = await checkWebhookUrl(req.url, {
        allowPrivate: opts.allowPrivate,
        dnsServers: opts.dnsServers,
        dnsDeadlineMs: lookupMs,
      });
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'user-agent': 'booking-service-webhooks/1', ...req.headers },
        body: req.body,
        signal: abort.signal,
      });
      const text = await readCapped(res.body);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const error = ok
        ? null
        : res.statusCode >= 300 && res.statusCode < 400
          ? `HTTP ${res.statusCode}: redirects are not followed${res.headers.location ? ` (location: ${String(res.headers.location).slice(0, 200)})` : ''}`
          : `HTTP ${res.statusCode}${text ? `: ${text.slice(0, 200)}` : ''}`;
      return { ok, responseStatus: res.statusCode, durationMs: elapsed(), error };
    };
    try {
      return await Promise.race([attempt(), deadline]);
    } catch (err) {
      const message =
        (err as { field?: string }).field === 'url' ? `refused: ${(err as Error).message.replace(/^url: /, '')}` : describe(err, timeoutMs);
      return { ok: false, responseStatus: null, durationMs: elapsed(), error: message };
    } finally {
      clearTimeout(timer);
    }
  }

  return { send, close: () => agent.close() };
}

/** Reads at most RESPONSE_BODY_CAP bytes; a longer body is cut off (and its connection dropped). */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_CAP) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_CAP).toString('utf8');
}
