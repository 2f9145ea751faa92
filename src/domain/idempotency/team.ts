import type { Db } from '../../db/pool.ts';
import { teamOf as teamOfBooking } from '../../db/queries/bookings.ts';
import { teamOf as teamOfEventType } from '../../db/queries/event-types.ts';

/** A keyed request, as the idempotency layer sees it: `route` is the route's pattern without /v1. */
export interface KeyedRequest {
  organizationId: string;
  mode: string;
  method: string;
  route: string;
  params: Record<string, unknown>;
  body: unknown;
}

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
const field = (body: unknown, name: string) =>
  body && typeof body === 'object' ? text((body as Record<string, unknown>)[name]) : undefined;

/**
 * The team an Idempotency-Key is scoped to (api-spec Limits: "scoped per team"): the one the
 * request acts on. A create acts on its event type's team, a change on its booking's, a new
 * event type on the body's team_id. Requests about no one team (webhooks), and those naming
 * something that does not exist (they fail, and failures are not stored), share the
 * organization-wide ''.
 */
export async function idempotencyTeam(db: Db, r: KeyedRequest): Promise<string> {
  const id = text(r.params.id);
  let team: string | undefined;
  if (r.method === 'POST' && r.route === '/bookings') {
    const eventType = field(r.body, 'event_type_id');
    if (eventType) team = await teamOfEventType(db, r.organizationId, eventType);
  } else if (r.route.startsWith('/bookings/:id') && id) {
    team = await teamOfBooking(db, r.organizationId, r.mode, id);
  } else if (r.method === 'POST' && r.route === '/event-types') {
    team = field(r.body, 'team_id');
  } else if (r.route === '/event-types/:id' && id) {
    team = await teamOfEventType(db, r.organizationId, id);
  }
  return team ?? '';
}
