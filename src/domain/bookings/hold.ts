import type { Tx } from '../../db/pool.ts';
import * as holds from '../../db/queries/booking-members.ts';
import { localDayOf } from '../availability/zone-days.ts';
import { Conflict } from '../errors.ts';

export interface HoldRequest {
  bookingId: string;
  mode: string;
  start: Date;
  end: Date;
  bufferBefore: number;
  bufferAfter: number;
}

/** held: the hold is written; refused: inactive, at the cap or overlapping. */
export type HoldOutcome = 'held' | 'refused';

function holdOf(memberId: string, r: HoldRequest) {
  return {
    bookingId: r.bookingId,
    memberId,
    mode: r.mode,
    start: r.start,
    blockedFrom: new Date(r.start.getTime() - r.bufferBefore * 60_000),
    blockedTo: new Date(r.end.getTime() + r.bufferAfter * 60_000),
  };
}

/** With the member's lock held: writes the hold unless the member is at the per-day cap or overlaps. */
async function insertHold(tx: Tx, member: holds.HoldMember, r: HoldRequest): Promise<boolean> {
  // The member's own calendar day, as availability counts the cap.
  const day = localDayOf(member.timezone, r.start.getTime());
  return holds.insertHoldWithinCap(tx, holdOf(member.id, r), new Date(day.from), new Date(day.to), member.max_bookings_per_day);
}

/**
 * Takes one member's time for the booking inside a SAVEPOINT, waiting for the member's lock:
 * 'refused' (and nothing written) when the member is inactive, at the per-day cap, or already
 * holds an overlapping active booking. The member row lock makes the cap count exact under
 * concurrency; the exclusion constraint makes overlaps impossible whatever any other code path
 * does.
 */
export async function tryHold(tx: Tx, memberId: string, r: HoldRequest): Promise<HoldOutcome> {
  await tx.query('savepoint hold');
  const member = await holds.lockMember(tx, memberId);
  // Nothing was locked or written: no need to roll back (the savepoint is harmless).
  if (!member) return 'refused';
  // On success the savepoint is left open rather than released: it commits with the
  // transaction all the same, and the release would cost a round trip.
  if (await insertHold(tx, member, r)) return 'held';
  // Rolling back also drops the member row lock, so at most one candidate is locked at a time.
  await tx.query('rollback to savepoint hold');
  return 'refused';
}

/**
 * SOLO / ROUND_ROBIN: the first candidate, in routing order, that can take the booking.
 *
 * skipBusy (create): concurrent creates compute the same routing order, so waiting for the
 * first candidate's lock would make them queue behind one another. Instead a first pass takes,
 * in one statement each time, the first candidate whose lock no other transaction holds (one
 * that is locked is being booked right now, so it is no longer the one with the fewest
 * bookings anyway); a candidate that then refuses is rolled back, lock and all, and the pass
 * goes on without it. A second pass then waits, in order, for every candidate the first
 * could not lock. So a candidate is only ever given up after it was examined under its lock:
 * a request is never refused while some candidate could take it, and the capacity guarantees
 * stay what they were.
 */
export async function holdFirstFree(
  tx: Tx,
  candidates: readonly string[],
  r: HoldRequest,
  opts: { skipBusy?: boolean } = {},
): Promise<string | undefined> {
  let waitFor: readonly string[] = candidates;
  if (opts.skipBusy) {
    const untried = new Set(candidates);
    await tx.query('savepoint first_pass');
    while (untried.size > 0) {
      const member = await holds.lockFirstUnlocked(tx, [...untried]);
      if (!member) break;
      if (await insertHold(tx, member, r)) return member.id;
      await tx.query('rollback to savepoint first_pass');
      untried.delete(member.id);
    }
    waitFor = [...untried];
  }
  for (const id of waitFor) {
    if ((await tryHold(tx, id, r)) === 'held') return id;
  }
  return undefined;
}

/**
 * COLLECTIVE: every host or none. Locks are taken in id order so two collective bookings over
 * the same hosts can never deadlock.
 */
export async function holdAll(tx: Tx, hostIds: readonly string[], r: HoldRequest): Promise<boolean> {
  for (const id of [...hostIds].sort()) {
    if ((await tryHold(tx, id, r)) !== 'held') return false;
  }
  return true;
}

/**
 * The members a new booking takes, or 409: every candidate for COLLECTIVE, else the first
 * free one in routing order. Create and reschedule share it so both refuse alike.
 */
export async function holdMembers(
  tx: Tx,
  collective: boolean,
  candidates: readonly string[],
  r: HoldRequest,
  opts: { skipBusy?: boolean } = {},
): Promise<string[]> {
  if (collective) {
    if (!(await holdAll(tx, candidates, r))) throw new Conflict('the slot is no longer available: a host was just booked');
    return [...candidates];
  }
  const member = await holdFirstFree(tx, candidates, r, opts);
  if (!member) throw new Conflict('the slot is no longer available: every free host was just booked');
  return [member];
}
