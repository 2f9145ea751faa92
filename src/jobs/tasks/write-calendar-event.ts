import type { Task } from 'graphile-worker';
import type { WritePayload } from '../../domain/calendars/write-back.ts';
import { writeMeeting } from '../../domain/calendars/write-back.ts';
import type { WorkerDeps } from '../deps.ts';

/**
 * Writes one meeting's event into its hosts' connected calendars (docs/calendars.md). Jobs of
 * one meeting share a queue, so they run one at a time and in order; a failure throws for
 * graphile-worker's exponential backoff until CALENDAR_WRITE_ATTEMPTS, when the calendar shows
 * ERROR instead.
 */
export function writeCalendarEventTask(deps: WorkerDeps): Task {
  return async (payload, helpers) => {
    const p = payload as WritePayload | null;
    if (typeof p?.rootBookingId !== 'string') throw new Error('write-calendar-event: payload needs rootBookingId');
    await writeMeeting(deps, p.rootBookingId, { attempt: helpers.job.attempts });
  };
}
