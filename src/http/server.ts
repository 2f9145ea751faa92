import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppDeps } from './deps.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './errors.ts';
import { loggerOptions } from './log.ts';
import { installAliases } from './plugins/aliases.ts';
import { installHostileText } from './plugins/hostile-text.ts';
import { installAuth, installAuthorization } from './plugins/auth.ts';
import { installIdempotency } from './plugins/idempotency.ts';
import { installObservability } from './plugins/observability.ts';
import { INFO, TAGS, documentRoute, finishDocument } from './openapi-docs.ts';
import { COMPONENTS } from './schemas/components.ts';
import { installRateLimit } from './plugins/rate-limit.ts';
import { installReference } from './plugins/reference.ts';
import { installRequestId, requestIdFor } from './plugins/request-id.ts';
import { installBodyParsers, installValidation } from './plugins/validation.ts';
import type { RateLimitStore } from './rate-limit-store.ts';
import { healthRoutes } from './routes/health.ts';
import { apiRoutes } from './routes/index.ts';
import { widgetRoutes } from './routes/widget.ts';
import { onceEachSerializer } from './serializers.ts';

export const BODY_LIMIT = 256 * 1024;

export interface ServerOptions {
  deps: AppDeps;
  rateLimitStore: RateLimitStore;
  /** pino options or false; tests pass false. Ignored when loggerInstance is given. */
  logger?: boolean | object;
  loggerInstance?: Logger;
}

export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const { deps } = opts;
  const app = Fastify({
    ...(opts.loggerInstance
      ? { loggerInstance: opts.loggerInstance as unknown as FastifyBaseLogger }
      : { logger: opts.logger ?? loggerOptions(deps.config.logLevel) }),
    bodyLimit: BODY_LIMIT,
    genReqId: requestIdFor,
    // one line per request, written by installObservability when the answer has gone out
    logController: new LogController({ disableRequestLogging: true }),
    // Errors Fastify and Node answer before any hook runs, in the envelope too (decisions.md §6).
    frameworkErrors,
    clientErrorHandler,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // A request read while the API closes (SIGTERM: the API first, the database last) is served
    // as any other, with Connection: close, instead of Fastify's own 503, which has neither the
    // envelope nor X-Request-Id; app.close() waits for it before the pools close.
    return503OnClosing: false,
    schemaController: { compilersFactory: { buildSerializer: onceEachSerializer() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installValidation(app);
  installBodyParsers(app);
  registerErrorHandling(app);
  installRequestId(app);
  installObservability(app);
  installAuth(app, deps.db);
  installRateLimit(app, opts.rateLimitStore, { live: deps.config.rateLimitLive, test: deps.config.rateLimitTest }, () =>
    deps.now().getTime(),
  );
  installAuthorization(app);
  installHostileText(app);
  installAliases(app);
  installIdempotency(app, deps.db);
  app.addHook('onRoute', documentRoute);
  for (const schema of COMPONENTS) app.addSchema(schema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: INFO,
      servers: [{ url: '/', description: 'this server: the document is served by the API it describes' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
          serviceApiKey: { type: 'apiKey', in: 'header', name: 'Service-Api-Key', description: 'the same key in a Service-Api-Key header' },
          legacyApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'the same key in the legacy X-API-Key header' },
        },
      },
      security: [{ bearer: [] }, { serviceApiKey: [] }, { legacyApiKey: [] }],
    },
    // named schemas are components under their $id (the default would call them def-0, def-1, ...)
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transformObject: (doc) => ('openapiObject' in doc ? finishDocument(doc.openapiObject) : doc.swaggerObject),
  });
  await installReference(app);

  await app.register(healthRoutes, { deps });
  await app.register(widgetRoutes);
  await app.register(apiRoutes, { prefix: '/v1', deps });
  // The spec's Versioning section: the same routes without /v1, left out of the document.
  await app.register(
    async (unprefixed) => {
      unprefixed.addHook('onRoute', (route) => {
        route.schema = { ...(route.schema ?? {}), hide: true };
      });
      await unprefixed.register(apiRoutes, { deps });
    },
    { prefix: '' },
  );
  return app;
}
