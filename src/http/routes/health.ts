import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from '../deps.ts';

const Health = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get('/healthz', { schema: { tags: ['operations'], response: { 200: Health } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { tags: ['operations'], response: { 200: Health, 503: Health } } }, async (_req, reply) => {
    try {
      await deps.db.query('select 1');
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'database unreachable' });
    }
  });

  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
