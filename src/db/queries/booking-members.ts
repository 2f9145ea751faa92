import type { Tx } from '../pool.ts';
import { one, rows } from '../pool.ts';

export interface HoldArgs {
  bookingId: string;
  mode: string;
  start: Date;
  /** The buffered interval [start - buffer_before, end + buffer_after). */
  blockedFrom: Date;
  blockedTo: Date;
  /** In routing order; zones and day bounds index alike (see src/db/functions/hold_members.sql). */
  candidates: readonly string[];
  zones: readonly string[];
  dayFrom: readonly Date[];
  dayTo: readonly Date[];
}

/** The interval a hold blocks, as the tstzrange literal the database functions take. */
export const blockedRange = (h: HoldArgs) => `[${h.blockedFrom.toISOString()},${h.blockedTo.toISOString()})`;

/**
 * The database's hold rules (src/db/functions/hold_members.sql) in one statement: the members held,
 * none when the booking cannot be placed (the caller must then roll back).
 */
export async function holdMembers(tx: Tx, h: HoldArgs, collective: boolean): Promise<string[]> {
  // skip_busy (false): only a create skips locked candidates, inside create_booking
  const row = await one<{ held: string[] }>(
    tx,
    `select hold_members(booking => $1, hold_mode => $2, starts => $3, blocked => $4::tstzrange, candidates => $5::uuid[],
                         zones => $6::text[], day_from => $7::timestamptz[], day_to => $8::timestamptz[], collective => $9,
                         skip_busy => false) as held`,
    [h.bookingId, h.mode, h.start, blockedRange(h), h.candidates, h.zones, h.dayFrom, h.dayTo, collective],
  );
  return row!.held;
}

/** A booking that ends (cancelled, completed, no-show, rescheduled away) frees its members. */
export async function release(tx: Tx, bookingId: string): Promise<string[]> {
  const released = await rows<{ member_id: string }>(
    tx,
    'update booking_members set active = false where booking_id = $1 and active returning member_id',
    [bookingId],
  );
  return released.map((r) => r.member_id);
}
