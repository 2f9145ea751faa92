import type { Db } from '../../db/pool.ts';
import { enqueue } from '../../db/jobs.ts';

/** The job that syncs one connected calendar (src/jobs/tasks/sync-calendar.ts). */
export const SYNC_CALENDAR_TASK = 'sync-calendar' as const;

const keyOf = (calendarId: string) => `calendar-sync:${calendarId}`;

/**
 * Enqueues a sync of the calendar at `runAt` (default now), on `db` (a transaction: it exists
 * when the change commits). One job key per calendar: a pending sync is replaced, not doubled;
 * with `keepPending` a pending sync keeps its time (the overdue sweep only fills gaps).
 */
export async function enqueueSync(db: Db, calendarId: string, runAt?: Date, keepPending = false): Promise<void> {
  await enqueue(
    db,
    SYNC_CALENDAR_TASK,
    { calendarId },
    {
      jobKey: keyOf(calendarId),
      jobKeyMode: keepPending ? 'preserve_run_at' : 'replace',
      runAt,
      // a sync never throws for a failing server (it records ERROR); a crash is retried a little
      maxAttempts: 3,
    },
  );
}
