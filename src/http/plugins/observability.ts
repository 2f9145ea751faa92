import type { FastifyInstance, FastifyRequest } from 'fastify';
import pino from 'pino';
import { httpRequestDuration } from '../../metrics.ts';
import { redactUrl } from '../log.ts';

/** The route pattern a request matched (`/v1/bookings/:id`), so metrics have few label values. */
function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

/** Whether a logger at `current` writes `wanted` lines ('silent' and unknown levels write none). */
function enabled(current: string, wanted: 'info' | 'error'): boolean {
  return (pino.levels.values[current] ?? Infinity) <= pino.levels.values[wanted];
}

/**
 * One log line per request, written when the answer has gone out (Fastify's own pair of
 * "incoming request" / "request completed" lines is turned off in server.ts), and the
 * http_request_duration_seconds histogram.
 */
export function installObservability(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const seconds = reply.elapsedTime / 1000;
    const route = routeOf(request);
    httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, seconds);
    const level = reply.statusCode >= 500 ? 'error' : 'info';
    // the line's fields (the redacted URL above all) are built only when the line is written
    if (!enabled(request.log.level, level)) return;
    const fields = {
      method: request.method,
      url: redactUrl(request.url),
      route,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(request.auth ? { org: request.auth.organizationId, mode: request.auth.mode } : {}),
    };
    request.log[level](fields, 'request');
  });
}
