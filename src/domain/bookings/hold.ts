import type { Tx } from '../../db/pool.ts';
import type { HoldArgs } from '../../db/queries/booking-members.ts';
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

/** A member who may take the booking, with the zone its per-day cap counts days in. */
export interface Candidate {
  id: string;
  timezone: string;
}

/**
 * What the database's hold_members (src/db/functions/hold_members.sql) needs: the buffered interval and, per
 * candidate, the local day of the booking as availability counts it (also where a DST change
 * skips midnight), so the per-day cap counts the same days GET /availability does.
 */
export function holdArgs(candidates: readonly Candidate[], r: HoldRequest): HoldArgs {
  const days = candidates.map((c) => localDayOf(c.timezone, r.start.getTime()));
  return {
    bookingId: r.bookingId,
    mode: r.mode,
    start: r.start,
    blockedFrom: new Date(r.start.getTime() - r.bufferBefore * 60_000),
    blockedTo: new Date(r.end.getTime() + r.bufferAfter * 60_000),
    candidates: candidates.map((c) => c.id),
    zones: candidates.map((c) => c.timezone),
    dayFrom: days.map((d) => new Date(d.from)),
    dayTo: days.map((d) => new Date(d.to)),
  };
}

/**
 * The members a new booking takes, or 409: every candidate for COLLECTIVE, else the first
 * free one in routing order (the rules: src/db/functions/hold_members.sql). The exclusion
 * constraint makes overlaps impossible whatever any code path does; the member's row lock,
 * taken before the per-day count, makes the cap exact under concurrency.
 */
export async function holdMembers(tx: Tx, collective: boolean, candidates: readonly Candidate[], r: HoldRequest): Promise<string[]> {
  const held = await holds.holdMembers(tx, holdArgs(candidates, r), collective);
  if (held.length === 0) throw noLongerAvailable(collective);
  return held;
}

/** The 409 of a slot that every candidate (for COLLECTIVE: some host) was just booked away. */
export function noLongerAvailable(collective: boolean): Conflict {
  return new Conflict(
    collective
      ? 'the slot is no longer available: a host was just booked'
      : 'the slot is no longer available: every free host was just booked',
  );
}

/** `ids`, in their order, as candidates: their zones from `hosts` (the rows availability used). */
export function candidatesOf(ids: readonly string[], hosts: readonly Candidate[]): Candidate[] {
  const zone = new Map(hosts.map((h) => [h.id, h.timezone]));
  return ids.map((id) => ({ id, timezone: zone.get(id)! }));
}
