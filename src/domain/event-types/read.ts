import type { Db } from '../../db/pool.ts';
import * as eventTypes from '../../db/queries/event-types.ts';
import { NotFound } from '../errors.ts';
import { eventTypeDetailJson, eventTypeJson } from './present.ts';

/**
 * "Sorted alphabetically by name" (api-spec.md) as a reader means it: by letter whatever the case
 * or accent (`Ärger`, `Éclair` and `Élan` among the A's and E's, not after `Zebra` as the
 * database's C collation puts them), then by the exact name and id so the order is stable.
 */
const byLetter = new Intl.Collator('en', { sensitivity: 'base' });

export async function listEventTypes(db: Db, organizationId: string) {
  const list = await eventTypes.listVisible(db, organizationId);
  list.sort((a, b) => byLetter.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : 1));
  return list.map(eventTypeJson);
}

export async function getEventType(db: Db, organizationId: string, id: string) {
  const type = await eventTypes.findVisibleWithFields(db, organizationId, id);
  if (!type) throw new NotFound(`event type "${id}" not found`);
  return eventTypeDetailJson(type, type.custom_fields);
}
