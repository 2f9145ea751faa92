import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../db/pool.ts';
import type { AuthContext } from '../../domain/auth/keys.ts';
import { authenticate, isOriginAllowed } from '../../domain/auth/keys.ts';
import { Forbidden, Unauthorized } from '../../domain/errors.ts';
import { sendError } from '../errors.ts';
import type { Access } from '../access.ts';
import { accessFor, isOpenPath } from '../access.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The calling key; null on public routes and on optional routes called without one. */
    auth: AuthContext | null;
  }
}

/** Returned for an Authorization header that is not "Bearer <key>", so the 401 can say so. */
const MALFORMED = '';

/** Where the key may be: Authorization: Bearer, Service-Api-Key, or the legacy X-API-Key. */
export function extractKey(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  // A non-Bearer Authorization (Basic, a bare key) is refused, not passed over (docs/decisions.md).
  if (typeof authorization === 'string' && authorization.trim()) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return bearer ? bearer[1] : MALFORMED;
  }
  // An empty header counts as no key at all.
  const service = request.headers['service-api-key'];
  if (typeof service === 'string' && service.trim()) return service.trim();
  const legacy = request.headers['x-api-key'];
  if (typeof legacy === 'string' && legacy.trim()) return legacy.trim();
  return undefined;
}

const ALLOW_HEADERS = 'Authorization, Content-Type, Service-Api-Key, X-API-Key, Idempotency-Key, X-Request-Id';
const EXPOSE_HEADERS = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed';

function routeAccess(request: FastifyRequest): Access | undefined {
  const url = request.routeOptions.url;
  if (url === undefined) return undefined; // unknown route: the 404 handler answers
  if (url === '/docs' || url.startsWith('/docs/')) return { kind: 'public' };
  // Fastify answers HEAD with the GET handler, so HEAD must pass the GET route's checks.
  return accessFor(request.method === 'HEAD' ? 'GET' : request.method, url);
}

const originAllowed = (auth: AuthContext, origin: string) => !auth.allowedOrigins || auth.allowedOrigins.includes(origin);

/**
 * What a known key may do here: be used from the request's Origin, and call this route (a secret
 * key where one is needed, the route's scope). Installed after the rate limit, so that a 403 to a
 * valid key counts and carries the X-RateLimit headers, as every keyed answer does.
 */
export function installAuthorization(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const auth = request.auth;
    if (!auth || request.method === 'OPTIONS') return;
    const origin = request.headers.origin;
    if (origin !== undefined && !originAllowed(auth, origin)) throw new Forbidden(`origin "${origin}" is not allowed for this key`);
    const access = routeAccess(request);
    if (access?.kind !== 'key') return;
    if (auth.kind === 'publishable' && !access.publishable) {
      throw new Forbidden('this endpoint needs a secret key (sk_); publishable keys may not call it');
    }
    if (!auth.scopes.has(access.scope)) throw new Forbidden(`this key lacks the "${access.scope}" scope`);
  });
}

export function installAuth(app: FastifyInstance, db: Db): void {
  app.decorateRequest('auth', null);

  // Every route must have a row in the access table: a route added without one fails at boot.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      if (route.url === '/docs' || route.url.startsWith('/docs/')) continue;
      if (!accessFor(method, route.url)) throw new Error(`route ${method} ${route.url} has no row in src/http/access.ts`);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const access = routeAccess(request);
    if (!access || access.kind === 'public') return;
    const origin = request.headers.origin;
    const raw = extractKey(request);
    if (raw === undefined && access.kind === 'optional') {
      reply.header('Access-Control-Allow-Origin', '*');
      return;
    }
    if (raw === undefined) throw new Unauthorized('missing API key: send Authorization: Bearer <key>');
    if (raw === MALFORMED) throw new Unauthorized('malformed Authorization header: expected "Bearer <key>"');
    const auth = await authenticate(db, raw);
    if (!auth) throw new Unauthorized('invalid API key');
    request.auth = auth;
    // (whether the key may be used from this origin and on this route: installAuthorization)
    if (origin !== undefined && originAllowed(auth, origin)) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    }
  });

  // CORS preflight carries no key, so an origin is allowed when some key may be used from it:
  // one that lists it, or a publishable key without a list (isOriginAllowed).
  app.options('*', { schema: { hide: true } }, async (request, reply) => {
    const origin = request.headers.origin;
    // A plain OPTIONS (no Origin, so not a CORS preflight) just lists the methods.
    if (typeof origin !== 'string') return reply.code(204).header('Allow', 'GET, HEAD, POST, PATCH, DELETE, OPTIONS').send();
    const open = isOpenPath(request.url.split('?')[0]);
    if (!(open || (await isOriginAllowed(db, origin)))) {
      return sendError(reply, new Forbidden(`origin "${origin}" is not allowed`));
    }
    return reply
      .code(204)
      .header('Access-Control-Allow-Origin', open ? '*' : origin)
      .header('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE, OPTIONS')
      .header('Access-Control-Allow-Headers', ALLOW_HEADERS)
      .header('Access-Control-Expose-Headers', EXPOSE_HEADERS)
      .header('Access-Control-Max-Age', '600')
      .send();
  });
}
