import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Fastify from 'fastify';
import { INFO } from '../openapi-docs.ts';

const PREFIX = '/docs';

/**
 * GET /docs: the API reference (Scalar), no key needed (decisions §6). Everything it loads comes
 * from this server: the script is served from the package at /docs/js/scalar.js, the document is
 * /v1/openapi.json, fonts are the browser's own (Scalar's default fonts come from its CDN), and
 * telemetry, the developer toolbar and the AI agent (which would send the document to Scalar) are
 * off. "Try it" requests go straight to this server, never through Scalar's proxy.
 *
 * Scalar's Fastify plugin holds its 4.8 MB script in its own source, as a string literal: merely
 * importing it kept about 19 MB in the V8 heap of every API process, all of its life (docs/memory.md).
 * So it is imported on the first request under /docs, into a Fastify instance of its own that
 * the routes here hand requests to; a process whose reference nobody opens never loads it.
 */
export async function installReference(app: FastifyInstance): Promise<void> {
  let reference: Promise<FastifyInstance> | undefined;
  const load = async (): Promise<FastifyInstance> => {
    const { default: scalar } = await import('@scalar/fastify-api-reference');
    const inner = Fastify({ logger: false });
    await inner.register(scalar, {
      routePrefix: PREFIX,
      hooks: {
        // the 4.8 MB script changes only with the package: let browsers keep it for an hour
        onRequest: async (request, reply) => {
          if (request.url.endsWith('.js')) reply.header('Cache-Control', 'public, max-age=3600');
        },
      },
      configuration: {
        url: '/v1/openapi.json',
        pageTitle: `${INFO.title} reference`,
        title: INFO.title,
        withDefaultFonts: false,
        telemetry: false,
        showDeveloperTools: 'never',
        agent: { disabled: true },
        hideClientButton: true,
        defaultOpenAllTags: false,
        documentDownloadType: 'json',
        persistAuth: false,
        hideModels: false,
      },
    });
    await inner.ready();
    return inner;
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // a failed load (it cannot, short of a broken install) is tried again by the next request
    const inner = await (reference ??= load().catch((err: unknown) => {
      reference = undefined;
      throw err;
    }));
    const res = await inner.inject({ method: request.method as 'GET' | 'HEAD', url: request.url, headers: request.headers });
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value);
    }
    return reply.code(res.statusCode).send(res.rawPayload);
  };
  const route = { schema: { hide: true }, logLevel: 'warn' as const, handler };
  app.get(PREFIX, route);
  app.get(`${PREFIX}/*`, route);
}

/** Headers of the inner response that describe its own connection, not the content. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);
