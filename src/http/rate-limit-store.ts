import type { RedisLink } from '../lib/redis-link.ts';

/** Counts requests per key in fixed one-minute windows. */
export interface RateLimitStore {
  /** Adds one hit to `bucket` for the window ending at `resetAt` (ms) and returns the count. */
  hit(bucket: string, resetAt: number): Promise<number>;
  close(): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private counts = new Map<string, { resetAt: number; count: number }>();

  async hit(bucket: string, resetAt: number): Promise<number> {
    const entry = this.counts.get(bucket);
    if (!entry || entry.resetAt !== resetAt) {
      if (this.counts.size > 50_000) this.sweep(Date.now());
      this.counts.set(bucket, { resetAt, count: 1 });
      return 1;
    }
    entry.count += 1;
    return entry.count;
  }

  private sweep(now: number): void {
    for (const [k, v] of this.counts) if (v.resetAt <= now) this.counts.delete(k);
  }

  async close(): Promise<void> {}
}

/**
 * Shared counters so several API processes enforce one limit per key. While Redis is unusable
 * (RedisLink), or when a command fails, the hit is counted by a per-process store instead: each
 * process then enforces the limit on its own, so the effective limit is at most the number of
 * processes times the configured one, and no request waits on or fails for Redis.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private link: RedisLink;
  private local = new MemoryRateLimitStore();

  constructor(link: RedisLink) {
    this.link = link;
  }

  async hit(bucket: string, resetAt: number): Promise<number> {
    if (this.link.state() !== 'ok') return this.local.hit(bucket, resetAt);
    const key = `booking-service:rl:${bucket}:${resetAt}`;
    try {
      const result = await this.link.redis
        .multi()
        .incr(key)
        .pexpireat(key, resetAt + 1000)
        .exec();
      const count = Number(result?.[0]?.[1]);
      if (!Number.isFinite(count)) throw new Error(String(result?.[0]?.[0] ?? 'no count'));
      return count;
    } catch (err) {
      this.link.reportFailure(err);
      return this.local.hit(bucket, resetAt);
    }
  }

  async close(): Promise<void> {}
}
