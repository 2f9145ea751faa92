import ipaddr from 'ipaddr.js';

/**
 * Why an address may not be a webhook target, or null when it may. Only globally routable
 * unicast addresses pass: ipaddr.js names every other range (private, loopback, link-local,
 * unspecified, carrier-grade NAT, multicast, unique-local, broadcast, reserved, ...), and an
 * IPv4 address embedded in IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
 */
export function refusedAddressReason(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return 'is not an IP address';
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    // ::/96 other than :: and ::1: the deprecated IPv4-compatible form (::127.0.0.1), which
    // ipaddr.js calls unicast; no public endpoint is reached that way.
    else if (v6.parts.slice(0, 6).every((p) => p === 0) && (v6.parts[6] !== 0 || v6.parts[7]! > 1))
      return 'is an IPv4-compatible IPv6 address (deprecated)';
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `is a ${range} address`;
}

/** Literal IPv4 or IPv6 (brackets allowed) as opposed to a host name. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}
