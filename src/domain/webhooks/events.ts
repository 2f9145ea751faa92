import { BROADCAST_EVENTS, EVENT_TYPES } from '../events/record.ts';
import type { BookingEventType } from '../events/record.ts';
import { ValidationError } from '../errors.ts';

export { BROADCAST_EVENTS, EVENT_TYPES };

/** The events list of a create or update: non-empty, known names only, duplicates dropped. */
export function parseEventList(events: readonly string[]): BookingEventType[] {
  if (events.length === 0) throw new ValidationError('events: must list at least one event', 'events');
  events.forEach((e, i) => {
    if (!(EVENT_TYPES as readonly string[]).includes(e)) {
      throw new ValidationError(`events[${i}]: unknown event "${e}"; expected one of ${EVENT_TYPES.join(', ')}`, 'events');
    }
  });
  return EVENT_TYPES.filter((t) => events.includes(t));
}
