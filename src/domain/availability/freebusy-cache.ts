import type { Redis } from 'ioredis';

/**
 * Free/busy answers are cached for 60 seconds (api-spec Limits) and dropped when a booking of
 * the member changes. Keys start with the member id so invalidation can find them.
 */
export interface FreeBusyCache {
  get(memberId: string, key: string): Promise<unknown | undefined>;
  set(memberId: string, key: string, value: unknown): Promise<void>;
  invalidate(memberIds: readonly string[]): Promise<void>;
  /**
   * Drops what this process keeps in its own memory for these members (all of them without ids),
   * leaving a shared store alone: another process changed their bookings and invalidated the
   * shared store itself, and announced it (src/db/busy-changes.ts), or announcements were missed.
   */
  dropLocal(memberIds?: readonly string[]): void;
}

export const FREEBUSY_TTL_SECONDS = 60;

/** FREEBUSY_CACHE=off: nothing is kept, so every request computes its answer (for measuring the uncached path). */
export class NoFreeBusyCache implements FreeBusyCache {
  async get(): Promise<undefined> {
    return undefined;
  }

  async set(): Promise<void> {}

  async invalidate(): Promise<void> {}

  dropLocal(): void {}
}

/**
 * Per-process cache; with several API processes, REDIS_URL shares one instead. At most 500
 * entries per member; expired entries are swept from all members once per TTL (on a set), so
 * what the cache holds is about what was set in the last minute.
 */
export class MemoryFreeBusyCache implements FreeBusyCache {
  private byMember = new Map<string, Map<string, { until: number; value: unknown }>>();
  private now: () => number;
  private sweptAt = 0;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  async get(memberId: string, key: string): Promise<unknown | undefined> {
    const entry = this.byMember.get(memberId)?.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.now()) {
      this.byMember.get(memberId)?.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async set(memberId: string, key: string, value: unknown): Promise<void> {
    const now = this.now();
    if (now - this.sweptAt >= FREEBUSY_TTL_SECONDS * 1000) this.sweep(now);
    let entries = this.byMember.get(memberId);
    if (!entries) this.byMember.set(memberId, (entries = new Map()));
    if (entries.size > 500) entries.clear();
    entries.set(key, { until: now + FREEBUSY_TTL_SECONDS * 1000, value });
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [member, entries] of this.byMember) {
      for (const [key, entry] of entries) if (entry.until <= now) entries.delete(key);
      if (entries.size === 0) this.byMember.delete(member);
    }
  }

  /** Entries held, expired ones not yet swept included (for tests). */
  size(): number {
    let n = 0;
    for (const entries of this.byMember.values()) n += entries.size;
    return n;
  }

  async invalidate(memberIds: readonly string[]): Promise<void> {
    this.dropLocal(memberIds);
  }

  dropLocal(memberIds?: readonly string[]): void {
    if (!memberIds) this.byMember.clear();
    else for (const id of memberIds) this.byMember.delete(id);
  }
}

/**
 * Shared across API and worker processes through Redis (REDIS_URL). Each answer is its own key
 * with a 60 s expiry; a per-member set indexes them so invalidate can delete exactly that
 * member's answers. Redis trouble never fails a request: get misses, set and invalidate do
 * nothing (answers then live at most their 60 s).
 */
export class RedisFreeBusyCache implements FreeBusyCache {
  private redis: Redis;
  private prefix: string;
  private onError: (err: unknown) => void;

  /** `onError` hears every failed command (they fail open here): the link's judge of Redis's health. */
  constructor(redis: Redis, prefix = 'booking-service:freebusy', onError: (err: unknown) => void = () => {}) {
    this.redis = redis;
    this.prefix = prefix;
    this.onError = onError;
  }

  private entryKey(memberId: string, key: string): string {
    return `${this.prefix}:${memberId}:e:${key}`;
  }

  private indexKey(memberId: string): string {
    return `${this.prefix}:${memberId}:index`;
  }

  async get(memberId: string, key: string): Promise<unknown | undefined> {
    try {
      const raw = await this.redis.get(this.entryKey(memberId, key));
      return raw === null ? undefined : JSON.parse(raw);
    } catch (err) {
      this.onError(err);
      return undefined;
    }
  }

  async set(memberId: string, key: string, value: unknown): Promise<void> {
    const entry = this.entryKey(memberId, key);
    const index = this.indexKey(memberId);
    await this.redis
      .multi()
      .set(entry, JSON.stringify(value), 'EX', FREEBUSY_TTL_SECONDS)
      .sadd(index, entry)
      .expire(index, FREEBUSY_TTL_SECONDS * 2)
      .exec()
      .catch(this.onError);
  }

  async invalidate(memberIds: readonly string[]): Promise<void> {
    await this.tryInvalidate(memberIds);
  }

  /** Nothing of it is in this process. */
  dropLocal(): void {}

  /**
   * invalidate, answering whether Redis took it (false: it failed open). Each member's index is
   * read and deleted in one MULTI, so an answer stored meanwhile is indexed afresh, never left
   * out of every index (and so out of reach of later invalidations) by a read and a delete apart.
   */
  async tryInvalidate(memberIds: readonly string[]): Promise<boolean> {
    if (memberIds.length === 0) return true;
    try {
      const tx = this.redis.multi();
      for (const id of memberIds) tx.smembers(this.indexKey(id)).del(this.indexKey(id));
      const replies = (await tx.exec()) ?? [];
      const entries: string[] = [];
      for (let i = 0; i < replies.length; i += 2) {
        const [err, members] = replies[i]!;
        if (err) throw err;
        entries.push(...(members as string[]));
      }
      if (entries.length > 0) await this.redis.del(...entries);
      return true;
    } catch (err) {
      // nothing more to do here: the entries expire within FREEBUSY_TTL_SECONDS
      this.onError(err);
      return false;
    }
  }
}
