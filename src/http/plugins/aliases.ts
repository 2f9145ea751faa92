import type { FastifyInstance } from 'fastify';

/**
 * The camelCase request names of the spec's Versioning section, accepted everywhere as
 * aliases of the snake_case primary names. Calendars speak camelCase natively, so their
 * routes opt out with `config: { camelCase: true }`.
 */
export const ALIASES: Record<string, string> = {
  eventTypeId: 'event_type_id',
  requestedTime: 'requested_time',
  assignTo: 'assign_to',
  startDate: 'start_date',
  endDate: 'end_date',
  assignedToId: 'assigned_to_id',
  timeSlot: 'time_slot',
  startTime: 'start_time',
  endTime: 'end_time',
  isActive: 'is_active',
};

function rename(target: unknown): void {
  if (!target || typeof target !== 'object' || Array.isArray(target)) return;
  const obj = target as Record<string, unknown>;
  for (const [camel, snake] of Object.entries(ALIASES)) {
    if (camel in obj) {
      if (!(snake in obj)) obj[snake] = obj[camel];
      delete obj[camel];
    }
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    camelCase?: boolean;
  }
}

export function installAliases(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config?.camelCase) return;
    rename(request.query);
    rename(request.body);
  });
}
