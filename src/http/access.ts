import type { Scope } from '../domain/auth/scopes.ts';

/**
 * Who may call what (decisions.md §3): one row per route, keyed by method and the path
 * without /v1. `public` routes need no key; `optional` routes accept a key and then check it;
 * `publishable` says whether a pk_ key holding the scope may call it.
 */
export type Access = { kind: 'public' } | { kind: 'optional' } | { kind: 'key'; scope: Scope; publishable: boolean };

const key = (scope: Scope, publishable = false): Access => ({ kind: 'key', scope, publishable });

export const ACCESS: Record<string, Access> = {
  'GET /healthz': { kind: 'public' },
  'GET /readyz': { kind: 'public' },
  // METRICS_TOKEN, when set, is checked by the route itself (it is no API key)
  'GET /metrics': { kind: 'public' },
  'GET /openapi.json': { kind: 'public' },
  'GET /freebusy/:userId': { kind: 'optional' },
  // the booking widget's script and page; the widget calls the API with its publishable key
  'GET /embed.js': { kind: 'public' },
  'GET /book/:id': { kind: 'public' },

  'POST /bookings': key('bookings:create', true),
  'GET /bookings': key('bookings:read'),
  'GET /bookings/:id': key('bookings:read'),
  'GET /bookings/external/:externalId': key('bookings:read'),
  'PATCH /bookings/:id': key('bookings:write'),
  'DELETE /bookings/:id': key('bookings:write'),
  'POST /bookings/:id/reschedule': key('bookings:write'),
  'POST /bookings/:id/confirm': key('bookings:write'),
  'POST /bookings/:id/complete': key('bookings:write'),
  'POST /bookings/:id/no-show': key('bookings:write'),

  'GET /event-types': key('event-types:read', true),
  'GET /event-types/:id': key('event-types:read', true),
  'GET /event-types/:id/fields': key('event-types:read', true),
  'POST /event-types': key('event-types:write'),
  'PATCH /event-types/:id': key('event-types:write'),
  'DELETE /event-types/:id': key('event-types:write'),
  'GET /availability': key('event-types:read', true),

  'GET /team/members': key('team:read', true),
  'GET /team/members/available': key('team:read', true),
  'GET /team/members/:id': key('team:members:read'),

  'GET /calendars': key('calendars:read'),
  'GET /calendars/:userId': key('calendars:read'),

  'GET /webhooks': key('webhooks:read'),
  'GET /webhooks/:id': key('webhooks:read'),
  'GET /webhooks/:id/deliveries': key('webhooks:read'),
  'GET /webhooks/:id/stats': key('webhooks:read'),
  'POST /webhooks': key('webhooks:manage'),
  'PATCH /webhooks/:id': key('webhooks:manage'),
  'DELETE /webhooks/:id': key('webhooks:manage'),
  'POST /webhooks/:id/test': key('webhooks:manage'),
  'POST /webhooks/:id/rotate-secret': key('webhooks:manage'),
};

/** A path or route pattern without its /v1 prefix (the unprefixed aliases are the same routes). */
export const withoutVersion = (url: string) => url.replace(/^\/v1(?=\/|$)/, '') || '/';

/** Looks up a route's row; the /v1 prefix is irrelevant to access. */
export function accessFor(method: string, routeUrl: string): Access | undefined {
  return ACCESS[`${method} ${withoutVersion(routeUrl)}`];
}

/** Concrete paths (with or without /v1) of the routes anyone may call without a key, e.g. free/busy. */
const OPEN_PATHS: readonly RegExp[] = Object.entries(ACCESS)
  .filter(([route, access]) => access.kind === 'optional' && route.startsWith('GET '))
  .map(([route]) => new RegExp(`^(/v1)?${route.slice(4).replace(/:[^/]+/g, '[^/]+')}/?$`)); // the server ignores a trailing slash

/** Is `path` (no query string) a route that needs no key, so that any origin may call it? */
export function isOpenPath(path: string): boolean {
  return OPEN_PATHS.some((re) => re.test(path));
}
