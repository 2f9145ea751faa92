import { writeMeeting } from '../../domain/calendars/write-back.ts';
import type { WorkerDeps } from '../deps.ts';
import type { TypedTask } from '../registry.ts';

/**
 * Writes one meeting's event into its hosts' connected calendars (docs/calendars.md). Jobs of
 * one meeting share a queue, so they run one at a time and in order; a failure throws for
 * graphile-worker's exponential backoff until CALENDAR_WRITE_ATTEMPTS, when the calendar shows
 * ERROR instead.
 */
export function writeCalendarEventTask(deps: WorkerDeps): TypedTask<'write-calendar-event'> {
  return async (payload, helpers) => {
    await writeMeeting(deps, payload.rootBookingId, { attempt: helpers.job.attempts });
  };
}
