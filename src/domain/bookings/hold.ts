import { DateTime } from 'luxon';
import type { Tx } from '../../db/pool.ts';
import * as holds from '../../db/queries/booking-members.ts';
import { isOverlap } from './pg-errors.ts';

export interface HoldRequest {
  bookingId: string;
  mode: string;
  start: Date;
  end: Date;
  bufferBefore: number;
  bufferAfter: number;
}

/** The member's own calendar day around `start`, as UTC instants. */
function localDay(start: Date, timezone: string): { from: Date; to: Date } {
  const day = DateTime.fromJSDate(start, { zone: timezone }).startOf('day');
  return { from: day.toJSDate(), to: day.plus({ days: 1 }).toJSDate() };
}

/**
 * Takes one member's time for the booking inside a SAVEPOINT: false (and nothing written) when
 * the member is inactive, at the per-day cap, or already holds an overlapping active booking.
 * The member row lock makes the cap count exact under concurrency; the exclusion constraint
 * makes overlaps impossible whatever any other code path does.
 */
export async function tryHold(tx: Tx, memberId: string, r: HoldRequest): Promise<boolean> {
  await tx.query('savepoint hold');
  try {
    const member = await holds.lockMember(tx, memberId);
    if (member) {
      const day = localDay(r.start, member.timezone);
      const booked = await holds.countActiveStarting(tx, memberId, r.mode, day.from, day.to);
      if (booked < member.max_bookings_per_day) {
        await holds.insertHold(tx, {
          bookingId: r.bookingId,
          memberId,
          mode: r.mode,
          start: r.start,
          blockedFrom: new Date(r.start.getTime() - r.bufferBefore * 60_000),
          blockedTo: new Date(r.end.getTime() + r.bufferAfter * 60_000),
        });
        await tx.query('release savepoint hold');
        return true;
      }
    }
  } catch (err) {
    if (!isOverlap(err)) throw err;
  }
  // Rolling back also drops the member row lock, so at most one candidate is locked at a time.
  await tx.query('rollback to savepoint hold');
  return false;
}

/** SOLO / ROUND_ROBIN: the first candidate, in routing order, that can take the booking. */
export async function holdFirstFree(tx: Tx, candidates: readonly string[], r: HoldRequest): Promise<string | undefined> {
  for (const id of candidates) {
    if (await tryHold(tx, id, r)) return id;
  }
  return undefined;
}

/**
 * COLLECTIVE: every host or none. Locks are taken in id order so two collective bookings over
 * the same hosts can never deadlock.
 */
export async function holdAll(tx: Tx, hostIds: readonly string[], r: HoldRequest): Promise<boolean> {
  for (const id of [...hostIds].sort()) {
    if (!(await tryHold(tx, id, r))) return false;
  }
  return true;
}
