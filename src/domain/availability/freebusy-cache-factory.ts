import type { RedisLink } from '../../lib/redis-link.ts';
import type { FreeBusyCache } from './freebusy-cache.ts';
import { MemoryFreeBusyCache, NoFreeBusyCache, RedisFreeBusyCache } from './freebusy-cache.ts';

export type ClosableFreeBusyCache = FreeBusyCache & { close(): Promise<void> };

/** Members whose invalidations are remembered while Redis is away; past this, its entries are all dropped on return. */
const MAX_MISSED_INVALIDATIONS = 10_000;

/**
 * The shared cache in Redis while Redis answers, a per-process one while it does not:
 *
 * - entering the degraded state starts from an empty local cache (what it held from an earlier
 *   outage missed every invalidation made through Redis since);
 * - invalidations made while degraded are remembered and applied to Redis when it returns, before
 *   Redis is read again, so no answer cached there before the outage outlives a booking made
 *   during it (beyond MAX_MISSED_INVALIDATIONS members every entry of the cache is dropped);
 * - while degraded, another process's invalidations do not reach this one: its answers may be
 *   up to the cache's 60 s old, as documented in docs/scheduling.md (bookings stay exact: the
 *   database refuses an overlapping one).
 */
export class FallbackFreeBusyCache implements FreeBusyCache {
  private link: RedisLink;
  private shared: RedisFreeBusyCache;
  private prefix: string;
  private local = new MemoryFreeBusyCache();
  private missed = new Set<string>();
  private missedTooMany = false;
  private replaying: Promise<void> | null = null;

  constructor(link: RedisLink, prefix = 'booking-service:freebusy') {
    this.link = link;
    this.prefix = prefix;
    this.shared = new RedisFreeBusyCache(link.redis, prefix, (err) => link.reportFailure(err));
    link.onChange((state) => {
      if (state === 'degraded') this.local = new MemoryFreeBusyCache();
      else this.useShared(); // applies the invalidations it missed before Redis is read again
    });
  }

  private useShared(): boolean {
    if (this.link.state() !== 'ok') return false;
    if (this.replaying === null && (this.missed.size > 0 || this.missedTooMany))
      this.replaying = this.replayMissed().finally(() => (this.replaying = null));
    return this.replaying === null;
  }

  private async replayMissed(): Promise<void> {
    try {
      if (this.missedTooMany) {
        let cursor = '0';
        do {
          const [next, keys] = await this.link.redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
          if (keys.length > 0) await this.link.redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
        this.missedTooMany = false;
      } else if (this.missed.size > 0) {
        const ids = [...this.missed];
        if (await this.shared.tryInvalidate(ids)) for (const id of ids) this.missed.delete(id);
      }
    } catch (err) {
      // Redis went away again: the members stay remembered for its next return
      this.link.reportFailure(err);
    }
  }

  get(memberId: string, key: string): Promise<unknown | undefined> {
    return this.useShared() ? this.shared.get(memberId, key) : this.local.get(memberId, key);
  }

  set(memberId: string, key: string, value: unknown): Promise<void> {
    return this.useShared() ? this.shared.set(memberId, key, value) : this.local.set(memberId, key, value);
  }

  dropLocal(memberIds?: readonly string[]): void {
    this.local.dropLocal(memberIds);
  }

  async invalidate(memberIds: readonly string[]): Promise<void> {
    await this.local.invalidate(memberIds);
    if (this.useShared() && (await this.shared.tryInvalidate(memberIds))) return;
    for (const id of memberIds) this.missed.add(id);
    if (this.missed.size > MAX_MISSED_INVALIDATIONS) {
      this.missed.clear();
      this.missedTooMany = true;
    }
  }
}

/**
 * FREEBUSY_CACHE=off in a process that shares Redis with others: it keeps and reads nothing, but
 * its booking changes still drop the answers the other processes keep there.
 */
class InvalidationsOnly implements FreeBusyCache {
  private shared: FallbackFreeBusyCache;

  constructor(shared: FallbackFreeBusyCache) {
    this.shared = shared;
  }

  async get(): Promise<undefined> {
    return undefined;
  }

  async set(): Promise<void> {}

  invalidate(memberIds: readonly string[]): Promise<void> {
    return this.shared.invalidate(memberIds);
  }

  dropLocal(): void {}
}

/**
 * With a Redis link the cache is shared by every process (and invalidations reach them all); else per process,
 * and the processes hear of each other's booking changes through PostgreSQL (src/db/busy-changes.ts).
 * enabled false (FREEBUSY_CACHE=off): nothing kept, every request computes; with Redis, its
 * invalidations still reach the shared cache the other processes use.
 */
export function createFreeBusyCache(redis: RedisLink | undefined, enabled = true): ClosableFreeBusyCache {
  const cache = enabled
    ? redis
      ? new FallbackFreeBusyCache(redis)
      : new MemoryFreeBusyCache()
    : redis
      ? new InvalidationsOnly(new FallbackFreeBusyCache(redis))
      : new NoFreeBusyCache();
  return Object.assign(cache, { close: async () => {} });
}
