import type { Db } from '../../db/pool.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import { NotFound } from '../errors.ts';
import { eventTypeDetailJson, eventTypeJson } from './present.ts';

export async function listEventTypes(db: Db, organizationId: string) {
  const list = await eventTypes.listVisible(db, organizationId);
  return list.map(eventTypeJson);
}

export async function getEventType(db: Db, organizationId: string, id: string) {
  const type = await eventTypes.findVisibleWithFields(db, organizationId, id);
  if (!type) throw new NotFound(`event type "${id}" not found`);
  return eventTypeDetailJson(type, type.custom_fields);
}
