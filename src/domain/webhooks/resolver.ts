import { lookup } from 'node:dns/promises';

/** Every address a host name resolves to. */
export type Resolve = (hostname: string) => Promise<string[]>;

async function systemResolve(hostname: string): Promise<string[]> {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

let current: Resolve = systemResolve;

/**
 * The resolver that URL checks (at create/update) and delivery connections (at every attempt)
 * use. A seam for tests: a host name can resolve to a public address at create and to
 * 127.0.0.1 at delivery. `null` restores the system resolver.
 */
export function setResolver(resolve: Resolve | null): void {
  current = resolve ?? systemResolve;
}

export function resolveHost(hostname: string): Promise<string[]> {
  return current(hostname);
}
