import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Unauthorized } from '../../domain/errors.ts';
import { exposition } from '../../metrics.ts';
import type { AppDeps } from '../deps.ts';
import { bearerMatches } from '../metrics-server.ts';
import { Health, Readiness, ref } from '../schemas/common.ts';

export const healthRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  // Also under /v1 (hidden from the document) for clients that put every path under the base URL.
  for (const prefix of ['', '/v1']) {
    const hide = prefix !== '';
    const health = {
      hide,
      tags: ['operations'],
      operationId: 'getHealth',
      summary: 'Liveness: the process is up',
      description: "No key needed. For a load balancer's or orchestrator's liveness probe.",
      security: [],
      response: { 200: ref(Health, { description: 'the process is up' }) },
    };
    app.get(`${prefix}/healthz`, { schema: health }, async () => ({ success: true, status: 'ok' }));

    const ready = {
      hide,
      tags: ['operations'],
      operationId: 'getReadiness',
      summary: 'Readiness: the database is reachable',
      description:
        'No key needed. For a readiness probe: 503 while the database cannot be reached; Redis being away does not make it unready.',
      security: [],
      response: {
        200: ref(Readiness, { description: 'ready to serve (with REDIS_URL, also while Redis is unreachable: `redis: degraded`)' }),
        503: ref(Readiness, { description: 'the database is unreachable (`success: false`)' }),
      },
    };
    app.get(`${prefix}/readyz`, { schema: ready }, async (_req, reply) => {
      try {
        await deps.db.query('select 1');
        // Redis being away does not make the process unready: it serves without it (docs/operations.md)
        return { success: true, status: 'ready', ...(deps.redisState ? { redis: deps.redisState() } : {}) };
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
