import ipaddr from 'ipaddr.js';
import { ValidationError } from '../errors.ts';

export const MAX_CALENDAR_URL_LENGTH = 2048;

/** 127.0.0.0/8, ::1 (and ::ffff:127.x) or a localhost name: where plain http is allowed. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  let parsed = ipaddr.parse(host);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'loopback';
}

/**
 * The URL rules of a calendar connection (decisions.md §7): https, or http on a loopback host;
 * no credentials inside the URL (they travel apart and are stored encrypted). Private and
 * loopback addresses are allowed: an operator connects the calendar, not an API caller.
 */
export function checkCalendarUrl(raw: string, field = 'url'): URL {
  if (raw.length > MAX_CALENDAR_URL_LENGTH) throw new ValidationError(`${field}: at most ${MAX_CALENDAR_URL_LENGTH} characters`, field);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError(`${field}: not a valid absolute URL`, field);
  }
  if (url.username || url.password) throw new ValidationError(`${field}: must not contain credentials (give them apart)`, field);
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  if (url.protocol === 'http:') throw new ValidationError(`${field}: must use https (http is allowed only on a loopback host)`, field);
  throw new ValidationError(`${field}: must be an https URL, got "${url.protocol}"`, field);
}
