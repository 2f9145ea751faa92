import { Redis } from 'ioredis';

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

/** Shared counters so several API processes enforce one limit per key. */
export class RedisRateLimitStore implements RateLimitStore {
  private redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.on('error', () => {});
  }

  async hit(bucket: string, resetAt: number): Promise<number> {
    const key = `booking-service:rl:${bucket}:${resetAt}`;
    const result = await this.redis.multi().incr(key).pexpireat(key, resetAt + 1000).exec();
    const count = result?.[0]?.[1];
    return typeof count === 'number' ? count : Number(count);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => {});
  }
}
