import { DateTime } from 'luxon';
import type { Tx } from '../../db/pool.ts';
import * as holds from '../../db/queries/booking-members.ts';
import { Conflict } from '../errors.ts';
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

/** held: the hold is written; refused: inactive, at the cap or overlapping; busy: locked by another transaction (only when not waiting). */
export type HoldOutcome = 'held' | 'refused' | 'busy';

/**
 * Takes one member's time for the booking inside a SAVEPOINT: 'refused' (and nothing written)
 * when the member is inactive, at the per-day cap, or already holds an overlapping active
 * booking. The member row lock makes the cap count exact under concurrency; the exclusion
 * constraint makes overlaps impossible whatever any other code path does. With wait = false
 * a member whose lock another transaction holds is 'busy' at once instead of waited for.
 */
export async function tryHold(tx: Tx, memberId: string, r: HoldRequest, wait = true): Promise<HoldOutcome> {
  await tx.query('savepoint hold');
  try {
    const member = wait ? await holds.lockMember(tx, memberId) : await holds.tryLockMember(tx, memberId);
    // Nothing was locked or written: no need to roll back (the savepoint is harmless).
    if (!member) return wait ? 'refused' : 'busy';
    const day = localDay(r.start, member.timezone);
    const hold = {
      bookingId: r.bookingId,
      memberId,
      mode: r.mode,
      start: r.start,
      blockedFrom: new Date(r.start.getTime() - r.bufferBefore * 60_000),
      blockedTo: new Date(r.end.getTime() + r.bufferAfter * 60_000),
    };
    // On success the savepoint is left open rather than released: it commits with the
    // transaction all the same, and the release would cost a round trip.
    if (await holds.insertHoldWithinCap(tx, hold, day.from, day.to, member.max_bookings_per_day)) return 'held';
  } catch (err) {
    if (!isOverlap(err)) throw err;
  }
  // Rolling back also drops the member row lock, so at most one candidate is locked at a time.
  await tx.query('rollback to savepoint hold');
  return 'refused';
}

/**
 * SOLO / ROUND_ROBIN: the first candidate, in routing order, that can take the booking.
 *
 * skipBusy (create): concurrent creates compute the same routing order, so waiting for the
 * first candidate's lock would make them queue behind one another. Instead a first pass tries
 * each candidate without waiting and skips those another transaction is holding (that member
 * is being booked right now, so it is no longer the one with the fewest bookings anyway); a
 * second pass then waits, in order, for every candidate skipped. So a candidate is only ever
 * given up after it was examined under its lock: a request is never refused while some
 * candidate could take it, and the capacity guarantees stay what they were.
 */
export async function holdFirstFree(
  tx: Tx,
  candidates: readonly string[],
  r: HoldRequest,
  opts: { skipBusy?: boolean } = {},
): Promise<string | undefined> {
  const busy: string[] = [];
  for (const id of candidates) {
    const outcome = await tryHold(tx, id, r, !opts.skipBusy);
    if (outcome === 'held') return id;
    if (outcome === 'busy') busy.push(id);
  }
  for (const id of busy) {
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
