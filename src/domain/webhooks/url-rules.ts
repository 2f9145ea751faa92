import { ValidationError } from '../errors.ts';
import { isIpLiteral, refusedAddressReason } from './address-rules.ts';
import { resolveHost } from './resolver.ts';

export const MAX_URL_LENGTH = 2048;
/** Create and update wait at most this long for the URL's host name to resolve. */
export const VALIDATION_DNS_DEADLINE_MS = 2000;

export interface UrlRuleOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: lifts the address rules, never the HTTPS rule. */
  allowPrivate: boolean;
  /** DNS_SERVERS; unset: the system's name servers. */
  dnsServers?: readonly string[] | undefined;
  /** How long the host name may take to resolve (default VALIDATION_DNS_DEADLINE_MS). */
  dnsDeadlineMs?: number;
}

/** A lookup that failed for want of an answer (deadline passed, servers silent or failing), not for want of a name. */
function isUnanswered(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EDNSTIMEOUT' || code === 'ETIMEOUT';
}

/**
 * The checks that need no network: HTTPS, no credentials, no name that is local by definition,
 * no refused literal address. The WHATWG parser has already turned 2130706433, 0x7f.1,
 * 017700000001 and 127.0.0.1. into 127.0.0.1, so every spelling of an address meets one check.
 * Returns the parsed URL; the host name (without trailing dot) still has to be resolved.
 */
export function checkUrlShape(raw: string, opts: UrlRuleOptions): URL {
  if (raw.length > MAX_URL_LENGTH) throw new ValidationError(`url: at most ${MAX_URL_LENGTH} characters`, 'url');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('url: not a valid absolute URL', 'url');
  }
  if (url.protocol !== 'https:') throw new ValidationError('url: must use https', 'url');
  if (url.username || url.password) throw new ValidationError('url: must not contain credentials', 'url');
  if (opts.allowPrivate) return url;
  const host = hostOf(url);
  if (isIpLiteral(host)) {
    const reason = refusedAddressReason(host);
    if (reason) throw new ValidationError(`url: ${host} ${reason}; webhooks must target a public address`, 'url');
  } else if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    throw new ValidationError(`url: ${host} is not a public host name`, 'url');
  }
  return url;
}

/** The URL's host without brackets, lower-cased, without a trailing dot. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/**
 * Throws unless every address the host resolves to is allowed (the message names the first
 * refused). A name that does not resolve is refused unless `unresolved` is 'accept'. A name that
 * cannot be resolved in time (its servers do not answer within the deadline) is a 400 on
 * create and update (`unresolved: 'accept'`): the client learns now rather than from failed
 * deliveries; at delivery the lookup's error goes up as it is (the attempt fails with it).
 */
export async function checkResolvedAddresses(
  host: string,
  field: string,
  unresolved: 'refuse' | 'accept',
  opts: UrlRuleOptions,
): Promise<void> {
  const deadlineMs = opts.dnsDeadlineMs ?? VALIDATION_DNS_DEADLINE_MS;
  let addresses: string[];
  try {
    addresses = await resolveHost(host, { servers: opts.dnsServers, deadlineMs });
  } catch (err) {
    if (!isUnanswered(err)) addresses = [];
    else if (unresolved === 'accept') {
      throw new ValidationError(
        `${field}: host name ${host} could not be resolved within ${deadlineMs / 1000} s (its DNS servers did not answer); check the name or try again`,
        field,
      );
    } else throw err;
  }
  if (addresses.length === 0) {
    if (unresolved === 'accept') return;
    throw new ValidationError(`${field}: host name ${host} does not resolve`, field);
  }
  for (const address of addresses) {
    const reason = refusedAddressReason(address);
    if (reason)
      throw new ValidationError(`${field}: ${host} resolves to ${address}, which ${reason}; webhooks must target a public address`, field);
  }
}

/**
 * The URL rules on create, update and every delivery attempt: shape (a literal address is
 * checked there), then, unless private targets are allowed, what the name resolves to now.
 * Create and update accept a name that does not exist (`unresolved: 'accept'`): it targets
 * no private address, the spec refuses only private, loopback and link-local targets, and a
 * machine without outside DNS (a CI sandbox) could otherwise register no webhook at all. The
 * delivery check refuses it, so such a webhook's attempts fail ("does not resolve") until its
 * name resolves to a public address. A name whose servers do not answer within the deadline is
 * refused on create and update (400).
 */
export async function checkWebhookUrl(raw: string, opts: UrlRuleOptions, unresolved: 'refuse' | 'accept' = 'refuse'): Promise<URL> {
  const url = checkUrlShape(raw, opts);
  const host = hostOf(url);
  if (!opts.allowPrivate && !isIpLiteral(host)) await checkResolvedAddresses(host, 'url', unresolved, opts);
  return url;
}
