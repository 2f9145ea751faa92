import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Unauthorized } from '../../domain/errors.ts';
import { exposition } from '../../metrics.ts';
import type { AppDeps } from '../deps.ts';
import { bearerMatches } from '../metrics-server.ts';

// Successful bodies carry success: true like every other answer (api-spec intro).
const Health = Type.Object({ success: Type.Boolean(), status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  // Also under /v1 (hidden from the document) for clients that put every path under the base URL.
  for (const prefix of ['', '/v1']) {
    const hide = prefix !== '';
    app.get(`${prefix}/healthz`, { schema: { hide, tags: ['operations'], security: [], response: { 200: Health } } }, async () => ({ success: true, status: 'ok' }));

    app.get(`${prefix}/readyz`, { schema: { hide, tags: ['operations'], security: [], response: { 200: Health, 503: Health } } }, async (_req, reply) => {
      try {
        await deps.db.query('select 1');
        return { success: true, status: 'ready' };
      } catch {
        return reply.code(503).send({ success: false, status: 'database unreachable' });
      }
    });
  }

  // Prometheus text format (decisions §9); with METRICS_TOKEN set, only for Authorization: Bearer <token>.
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const token = deps.config.metricsToken;
    if (token !== undefined && !bearerMatches(request.headers.authorization, token)) {
      throw new Unauthorized('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    const { contentType, body } = await exposition();
    return reply.header('Content-Type', contentType).send(body);
  });

  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
