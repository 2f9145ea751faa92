import type { FastifyInstance } from 'fastify';
import { RateLimited } from '../../domain/errors.ts';
import type { RateLimitStore } from '../rate-limit-store.ts';

export interface RateLimits {
  live: number;
  test: number;
}

const WINDOW_MS = 60_000;

/** Per-key limits (live 1000/min, test 100/min by default) with the spec's headers; windows follow the app's clock. */
export function installRateLimit(app: FastifyInstance, store: RateLimitStore, limits: RateLimits, clock: () => number = Date.now): void {
  app.addHook('onRequest', async (request, reply) => {
    const auth = request.auth;
    if (!auth) return;
    const now = clock();
    const resetAt = Math.floor(now / WINDOW_MS) * WINDOW_MS + WINDOW_MS;
    const limit = auth.mode === 'live' ? limits.live : limits.test;
    const count = await store.hit(auth.keyId, resetAt);
    reply.header('X-RateLimit-Limit', String(limit));
    reply.header('X-RateLimit-Remaining', String(Math.max(0, limit - count)));
    reply.header('X-RateLimit-Reset', String(Math.ceil(resetAt / 1000)));
    if (count > limit) {
      throw new RateLimited(`rate limit of ${limit} requests per minute exceeded for this key`, (resetAt - now) / 1000);
    }
  });
}
