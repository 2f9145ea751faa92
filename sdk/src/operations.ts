import type { paths } from './openapi.ts';

export type Method = 'get' | 'post' | 'patch' | 'delete';

/**
 * Every operation of the service's OpenAPI document, keyed by the client method that calls it.
 * Keyed by path and method (not operationId), so renaming an operation changes nothing here;
 * a path or method that leaves the document stops compiling (OpOf below is then `undefined`).
 */
export const OPERATIONS = {
  'health.check': { method: 'get', path: '/healthz' },
  'health.ready': { method: 'get', path: '/readyz' },

  'bookings.create': { method: 'post', path: '/v1/bookings' },
  'bookings.list': { method: 'get', path: '/v1/bookings' },
  'bookings.get': { method: 'get', path: '/v1/bookings/{id}' },
  'bookings.getByExternalId': { method: 'get', path: '/v1/bookings/external/{externalId}' },
  'bookings.update': { method: 'patch', path: '/v1/bookings/{id}' },
  'bookings.cancel': { method: 'delete', path: '/v1/bookings/{id}' },
  'bookings.reschedule': { method: 'post', path: '/v1/bookings/{id}/reschedule' },
  'bookings.confirm': { method: 'post', path: '/v1/bookings/{id}/confirm' },
  'bookings.complete': { method: 'post', path: '/v1/bookings/{id}/complete' },
  'bookings.noShow': { method: 'post', path: '/v1/bookings/{id}/no-show' },

  'eventTypes.list': { method: 'get', path: '/v1/event-types' },
  'eventTypes.get': { method: 'get', path: '/v1/event-types/{id}' },
  'eventTypes.fields': { method: 'get', path: '/v1/event-types/{id}/fields' },
  'eventTypes.create': { method: 'post', path: '/v1/event-types' },
  'eventTypes.update': { method: 'patch', path: '/v1/event-types/{id}' },
  'eventTypes.delete': { method: 'delete', path: '/v1/event-types/{id}' },

  'availability.get': { method: 'get', path: '/v1/availability' },
  'freebusy.get': { method: 'get', path: '/v1/freebusy/{userId}' },

  'teamMembers.list': { method: 'get', path: '/v1/team/members' },
  'teamMembers.available': { method: 'get', path: '/v1/team/members/available' },
  'teamMembers.get': { method: 'get', path: '/v1/team/members/{id}' },

  'calendars.list': { method: 'get', path: '/v1/calendars' },
  'calendars.forUser': { method: 'get', path: '/v1/calendars/{userId}' },

  'webhooks.create': { method: 'post', path: '/v1/webhooks' },
  'webhooks.list': { method: 'get', path: '/v1/webhooks' },
  'webhooks.get': { method: 'get', path: '/v1/webhooks/{id}' },
  'webhooks.update': { method: 'patch', path: '/v1/webhooks/{id}' },
  'webhooks.delete': { method: 'delete', path: '/v1/webhooks/{id}' },
  'webhooks.test': { method: 'post', path: '/v1/webhooks/{id}/test' },
  'webhooks.rotateSecret': { method: 'post', path: '/v1/webhooks/{id}/rotate-secret' },
  'webhooks.deliveries': { method: 'get', path: '/v1/webhooks/{id}/deliveries' },
  'webhooks.stats': { method: 'get', path: '/v1/webhooks/{id}/stats' },
} as const satisfies Record<string, { method: Method; path: keyof paths }>;

export type OperationName = keyof typeof OPERATIONS;
type Def<N extends OperationName> = (typeof OPERATIONS)[N];

/** The generated type of one operation. */
export type OpOf<N extends OperationName> = paths[Def<N>['path']][Def<N>['method']];

/** Path parameters of an operation (`{ id: string }`), or never. */
export type PathParams<O> = O extends { parameters: { path?: infer P } } ? NonNullable<P> : never;
/** Query parameters of an operation, or never. */
export type QueryParams<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** JSON request body of an operation, or never. */
export type RequestBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The success body: 201 when the operation creates, else 200 (a replay of a create answers 200 with the same body). */
export type SuccessBody<O> = O extends { responses: infer R }
  ? R extends { 201: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 200: { content: { 'application/json': infer B } } }
      ? B
      : never
  : never;

/** The success body of a named operation. */
export type Ok<N extends OperationName> = SuccessBody<OpOf<N>>;

// Compile-time check that every row names a method the document has for that path.
type Missing = { [N in OperationName]: [Ok<N>] extends [never] ? N : never }[OperationName];
const _everyRowExists: [Missing] extends [never] ? true : Missing = true;
void _everyRowExists;
