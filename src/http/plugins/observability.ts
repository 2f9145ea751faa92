import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpRequestDuration } from '../../metrics.ts';

/** Query parameters whose values are secrets when a client puts them in a URL by mistake (decisions §6). */
const SECRET_PARAM = /key|token|secret|password|passwd|signature|auth/i;

/** The request's path and query with every secret-looking parameter's value replaced. */
export function redactedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // a malformed escape: judge the raw name
    }
    return eq >= 0 && SECRET_PARAM.test(decoded) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/** The route pattern a request matched (`/v1/bookings/:id`), so metrics have few label values. */
function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
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
    const fields = {
      method: request.method,
      url: redactedUrl(request.url),
      route,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(request.auth ? { org: request.auth.organizationId, mode: request.auth.mode } : {}),
    };
    if (reply.statusCode >= 500) request.log.error(fields, 'request');
    else request.log.info(fields, 'request');
  });
}
