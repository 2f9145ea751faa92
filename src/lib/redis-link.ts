import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** A TCP connection to Redis that does not complete within this is given up (and retried). */
export const REDIS_CONNECT_TIMEOUT_MS = 1000;
/** A command without a reply within this fails; the caller falls back to its local state. */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
/** Reconnection attempts back off up to this interval while Redis is away. */
const MAX_RECONNECT_DELAY_MS = 2000;

export type RedisState = 'ok' | 'degraded';

/**
 * One connection to Redis per process, shared by the rate limiter and the caches, that knows
 * whether Redis is usable right now. While it is not (refused, unreachable, timing out), commands
 * fail at once instead of queuing (no offline queue, no retries per command), the users fall back
 * to per-process state, and the connection keeps retrying in the background: the process uses
 * Redis again by itself as soon as it answers. Each change of state is logged once, naming Redis
 * and its address (never the password).
 */
export interface RedisLink {
  readonly redis: Redis;
  /** 'ok' once a connection is ready; 'degraded' before that and while Redis is away. */
  state(): RedisState;
  /** Called on every change of state (after the log line). */
  onChange(listener: (state: RedisState) => void): void;
  /** A command failed by timing out while the connection looked fine: treat Redis as away and reconnect. */
  reportFailure(err: unknown): void;
  close(): Promise<void>;
}

/** host:port/db of a Redis URL, without user or password, for log lines and health answers. */
export function redisAddress(url: string): string {
  try {
    const u = new URL(url);
    const db = u.pathname.replace(/^\//, '');
    return `${u.hostname}:${u.port || '6379'}${db ? `/${db}` : ''}`;
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

export function connectRedis(url: string, log: Pick<Logger, 'warn' | 'info'>): RedisLink {
  const address = redisAddress(url);
  const redis = new Redis(url, {
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // fail a command at once while disconnected (the caller falls back) rather than queue it
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // never give up reconnecting: Redis may come back at any time
    retryStrategy: (times) => Math.min(100 * times, MAX_RECONNECT_DELAY_MS),
  });
  let state: RedisState = 'degraded';
  let announced = false;
  let closing = false;
  const listeners: Array<(s: RedisState) => void> = [];
  const set = (next: RedisState, why?: string) => {
    if (closing) return;
    if (next === state && announced) return;
    state = next;
    announced = true;
    if (next === 'ok') log.info({ redis: address }, `Redis at ${address} is reachable: rate limits and caches are shared through it`);
    else {
      log.warn(
        { redis: address, reason: why },
        `Redis at ${address} is unreachable (${why ?? 'no connection'}): rate limits count per process and caches are local until it answers again`,
      );
    }
    for (const l of listeners) l(next);
  };
  redis.on('ready', () => set('ok'));
  redis.on('error', (err: Error & { code?: string }) => set('degraded', err.code ?? err.message));
  redis.on('close', () => set('degraded', 'connection closed'));
  return {
    redis,
    state: () => state,
    onChange: (l) => void listeners.push(l),
    reportFailure(err) {
      if (state !== 'ok' || !/timed out/i.test((err as Error)?.message ?? '')) return;
      set('degraded', 'commands time out');
      // drop the connection that stopped answering; retryStrategy makes a new one
      redis.disconnect(true);
    },
    async close() {
      closing = true;
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
