import { Resolver } from 'node:dns/promises';
import fs from 'node:fs/promises';
import net from 'node:net';

/** Every address a host name resolves to. */
export type Resolve = (hostname: string) => Promise<string[]>;

export interface DnsOptions {
  /** Name servers (`ip` or `ip:port`, `[v6]:port`); unset: the system's (/etc/resolv.conf). DNS_SERVERS. */
  servers?: readonly string[] | undefined;
  /** The lookup fails with DnsTimeout once this has passed, whatever the resolver is doing. */
  deadlineMs: number;
}

/** A name whose servers did not answer in time (as opposed to a name that does not exist). */
export class DnsTimeout extends Error {
  code = 'EDNSTIMEOUT';
  constructor(hostname: string, ms: number) {
    super(`DNS lookup of ${hostname} did not complete within ${ms} ms`);
  }
}

/** Each query to a name server waits this long for an answer, and is tried this many times. */
const QUERY_TIMEOUT_MS = 1000;
const QUERY_TRIES = 2;
/** Cached answers live their TTL within these bounds; a name that does not exist, NEGATIVE_TTL_S. */
const MIN_TTL_S = 1;
const MAX_TTL_S = 300;
const NEGATIVE_TTL_S = 30;
/** A name whose servers did not answer is not asked again for this long (its lookups fail at once). */
const TIMEOUT_TTL_S = 10;
const MAX_CACHED_NAMES = 10_000;
const HOSTS_FILE = '/etc/hosts';
const HOSTS_RECHECK_MS = 5000;

interface Cached {
  until: number;
  addresses: string[] | null;
  /** Set for a cached timeout: the lookup fails with it again. */
  timedOut?: boolean;
}

/** c-ares resolvers (not libuv's thread pool, which dns.lookup shares with fs and crypto) per server list. */
const resolvers = new Map<string, Resolver>();
const cache = new Map<string, Cached>();
const inFlight = new Map<string, Promise<Cached>>();

function resolverFor(servers: readonly string[] | undefined): Resolver {
  const key = servers?.join(',') ?? '';
  let r = resolvers.get(key);
  if (!r) {
    r = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
    if (servers && servers.length > 0) r.setServers([...servers]);
    resolvers.set(key, r);
  }
  return r;
}

let hosts: { map: Map<string, string[]>; checkedAt: number; mtimeMs: number } = { map: new Map(), checkedAt: 0, mtimeMs: -1 };

/** /etc/hosts, re-read when it changed (looked at most every 5 s). Names map to their addresses in file order. */
async function hostsFile(): Promise<Map<string, string[]>> {
  if (Date.now() - hosts.checkedAt < HOSTS_RECHECK_MS) return hosts.map;
  try {
    const stat = await fs.stat(HOSTS_FILE);
    if (stat.mtimeMs !== hosts.mtimeMs) {
      const map = new Map<string, string[]>();
      for (const line of (await fs.readFile(HOSTS_FILE, 'utf8')).split('\n')) {
        const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
        if (!address || !net.isIP(address)) continue;
        for (const name of names) {
          const key = name.toLowerCase().replace(/\.$/, '');
          map.set(key, [...(map.get(key) ?? []), address]);
        }
      }
      hosts = { map, checkedAt: Date.now(), mtimeMs: stat.mtimeMs };
    } else {
      hosts.checkedAt = Date.now();
    }
  } catch {
    hosts = { map: new Map(), checkedAt: Date.now(), mtimeMs: -1 };
  }
  return hosts.map;
}

// answers that the name has no such record; anything else (ETIMEOUT, ESERVFAIL, ECONNREFUSED, ...)
// means the servers gave no answer, which is cached and reported as such
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'EBADNAME']);

/** One family's answer: its addresses and smallest TTL, [] when the name has none, or 'timeout'. */
async function query(r: Resolver, family: 4 | 6, hostname: string): Promise<{ addresses: string[]; ttl: number } | 'timeout'> {
  try {
    const records = family === 4 ? await r.resolve4(hostname, { ttl: true }) : await r.resolve6(hostname, { ttl: true });
    return { addresses: records.map((x) => x.address), ttl: Math.min(...records.map((x) => x.ttl)) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (NO_SUCH_NAME.has(code)) return { addresses: [], ttl: NEGATIVE_TTL_S };
    return 'timeout';
  }
}

async function lookUp(hostname: string, servers: readonly string[] | undefined): Promise<Cached> {
  const r = resolverFor(servers);
  const [v4, v6] = await Promise.all([query(r, 4, hostname), query(r, 6, hostname)]);
  const now = Date.now();
  const answered = [v4, v6].filter((x): x is { addresses: string[]; ttl: number } => x !== 'timeout');
  const addresses = answered.flatMap((x) => x.addresses);
  // an answer of one family is enough; with none, a timeout of either is a timeout, not "no such name"
  if (addresses.length === 0 && answered.length < 2) return { until: now + TIMEOUT_TTL_S * 1000, addresses: null, timedOut: true };
  const ttl = addresses.length === 0 ? NEGATIVE_TTL_S : Math.min(...answered.filter((x) => x.addresses.length > 0).map((x) => x.ttl));
  return { until: now + Math.max(MIN_TTL_S, Math.min(MAX_TTL_S, ttl)) * 1000, addresses };
}

/**
 * The system resolver for webhook hosts (docs/webhooks.md "DNS"):
 * - an IP literal is itself; `localhost` and `*.localhost` are 127.0.0.1 and ::1 (RFC 6761);
 * - a name in /etc/hosts has the addresses listed there (as the system's lookup would give);
 * - any other name is asked of the name servers for A and AAAA records at once, by c-ares with
 *   1 s per query and 2 tries, never on libuv's thread pool; answers are cached for their TTL
 *   (1-300 s), a name that does not exist for 30 s, and a name whose servers did not answer
 *   fails at once for 10 s; concurrent lookups of one name share one query.
 */
async function systemResolve(hostname: string, servers?: readonly string[]): Promise<string[]> {
  const name = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (net.isIP(name)) return [name];
  if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
  const listed = (await hostsFile()).get(name);
  if (listed) return listed;
  const key = `${servers?.join(',') ?? ''}|${name}`;
  let entry = cache.get(key);
  if (!entry || entry.until <= Date.now()) {
    let pending = inFlight.get(key);
    if (!pending) {
      pending = lookUp(name, servers).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    entry = await pending;
    if (cache.size >= MAX_CACHED_NAMES) cache.clear();
    cache.set(key, entry);
  }
  if (entry.timedOut) throw Object.assign(new Error(`DNS servers did not answer for ${name}`), { code: 'ETIMEOUT' });
  return entry.addresses ?? [];
}

let seam: Resolve | null = null;

/**
 * A seam for tests: a host name can resolve to a public address at create and to 127.0.0.1 at
 * delivery. `null` restores the system resolver.
 */
export function setResolver(resolve: Resolve | null): void {
  seam = resolve;
}

/** Forgets cached answers (tests that change what a name resolves to). */
export function clearDnsCache(): void {
  cache.clear();
}

/**
 * The resolver that URL checks (at create/update) and delivery connections (at every attempt)
 * use. It rejects with DnsTimeout once `deadlineMs` has passed, whatever the resolver still does.
 */
export function resolveHost(hostname: string, opts: DnsOptions): Promise<string[]> {
  const work = seam ? seam(hostname) : systemResolve(hostname, opts.servers);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DnsTimeout(hostname, opts.deadlineMs)), opts.deadlineMs);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
