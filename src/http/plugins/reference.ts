import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import { INFO } from '../openapi-docs.ts';

/**
 * GET /docs: the API reference (Scalar), no key needed (decisions §6). Everything it loads comes
 * from this server: the script is served from the package at /docs/js/scalar.js, the document is
 * /v1/openapi.json, fonts are the browser's own (Scalar's default fonts come from its CDN), and
 * telemetry, the developer toolbar and the AI agent (which would send the document to Scalar) are
 * off. "Try it" requests go straight to this server, never through Scalar's proxy.
 */
export async function installReference(app: FastifyInstance): Promise<void> {
  await app.register(scalar, {
    routePrefix: '/docs',
    logLevel: 'warn',
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
}
