import type { Tx } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import * as holds from '../../db/queries/booking-members.ts';
import type { LockedBooking } from '../../db/queries/bookings.ts';
import * as bookings from '../../db/queries/bookings.ts';
import { enqueueCalendarWrites } from '../calendars/write-back.ts';
import { enqueueBookingEmail } from '../email/enqueue.ts';
import { NotFound, PreconditionFailed } from '../errors.ts';
import type { BookingEventType } from '../events/record.ts';
import { recordEvents } from '../events/record.ts';
import { bookingTransitions } from '../../metrics.ts';
import type { Caller } from '../vocabulary.ts';
import type { BookingDeps } from './create.ts';
import { withRetry } from './pg-errors.ts';
import { bookingJson } from './present.ts';
import type { Operation } from './transitions.ts';
import { requireTransition } from './transitions.ts';
import { validateReason } from './validate.ts';
import type { BookingRow } from '../../db/schema.ts';

export interface Applied {
  booking: BookingRow;
  /** Members whose busy time changed, for the free/busy cache. */
  touched: string[];
  /** False when the booking was already in the operation's target state and nothing was written. */
  changed?: boolean;
}

/**
 * The frame of every change to one booking: lock it (tenancy and mode in the lookup), ask the
 * transition table, and apply the change with its events and emails in one transaction.
 * A repeated operation already in its target state returns the booking untouched.
 */
export async function changeBooking(
  deps: BookingDeps,
  caller: Caller,
  id: string,
  op: Operation,
  apply: (tx: Tx, locked: LockedBooking, now: Date) => Promise<Applied>,
): Promise<BookingRow> {
  const now = deps.now();
  let from = '';
  const result = await withRetry(() =>
    transaction(deps.db, async (tx) => {
      const locked = await bookings.lockForChange(tx, caller.organizationId, caller.mode, id);
      if (!locked) throw new NotFound(`booking "${id}" not found`);
      from = locked.status;
      if (requireTransition(op, locked.status).noop) return { booking: locked as BookingRow, touched: [], changed: false };
      return apply(tx, locked, now);
    }),
  );
  if (result.touched.length > 0) await deps.freebusyCache.invalidate(result.touched);
  // a status entered (a PATCH changes the booking but not its status: docs/observability.md)
  if (result.changed !== false && result.booking.status !== from) bookingTransitions.inc({ to: result.booking.status });
  return stripLockColumns(result.booking);
}

function stripLockColumns(row: BookingRow): BookingRow {
  const { cancellation_enabled: _e, cancellation_cutoff_minutes: _c, requires_confirmation: _r, ...rest } = row as LockedBooking;
  return rest;
}

/**
 * Records `type` for each booking as it is after the change, in one statement for them all. The
 * event's `timestamp` is the change's own `updated_at` (src/db/queries/bookings.ts), so events
 * order as the changes happened, though a change that waited for another's lock began first.
 */
async function emitEach(tx: Tx, rows: readonly BookingRow[], type: BookingEventType): Promise<void> {
  await recordEvents(
    tx,
    rows.map((row) => ({ organizationId: row.organization_id, mode: row.mode, type, booking: bookingJson(row), at: row.updated_at })),
  );
}

function emit(tx: Tx, row: BookingRow, type: BookingEventType): Promise<void> {
  return emitEach(tx, [row], type);
}

/**
 * PENDING_CONFIRMATION (or RESCHEDULED) → SCHEDULED. Confirming a request invites everyone; a
 * RESCHEDULED booking's invitation already went out with the reschedule, so nothing is sent.
 */
export function confirmBooking(deps: BookingDeps, caller: Caller, id: string): Promise<BookingRow> {
  return changeBooking(deps, caller, id, 'confirm', async (tx, locked) => {
    const row = await bookings.applyStatusForEmail(tx, locked.id, { status: 'SCHEDULED' });
    if (locked.status === 'PENDING_CONFIRMATION') await enqueueBookingEmail(tx, { bookingId: row.id, kind: 'scheduled', booking: row });
    await enqueueCalendarWrites(tx, [row.id]);
    return { booking: row, touched: [] };
  });
}

/** COMPLETED and NO_SHOW close the booking: it no longer blocks its members' time. */
function close(op: 'complete' | 'no_show', status: 'COMPLETED' | 'NO_SHOW', event: BookingEventType) {
  return (deps: BookingDeps, caller: Caller, id: string): Promise<BookingRow> =>
    changeBooking(deps, caller, id, op, async (tx, locked) => {
      const row = await bookings.applyStatus(tx, locked.id, { status });
      const touched = await holds.release(tx, row.id);
      await emit(tx, row, event);
      return { booking: row, touched };
    });
}

export const completeBooking = close('complete', 'COMPLETED', 'BOOKING_COMPLETED');
export const markNoShow = close('no_show', 'NO_SHOW', 'BOOKING_NO_SHOW');

/**
 * Whether the organization's cancellation policy guards a booking: a confirmed meeting
 * (SCHEDULED, RESCHEDULED), as the spec's transition table puts it, and a DRAFT that routing
 * is about to schedule (its type needs no confirmation), so that a cancel's answer does not
 * depend on whether routing has run yet. A request awaiting the host's confirmation
 * (PENDING_CONFIRMATION, or a DRAFT on its way there) can always be withdrawn.
 */
export function policyGuards(b: Pick<LockedBooking, 'status' | 'requires_confirmation'>): boolean {
  if (b.status === 'SCHEDULED' || b.status === 'RESCHEDULED') return true;
  return b.status === 'DRAFT' && !b.requires_confirmation;
}

export function checkCancellationPolicy(locked: LockedBooking, now: Date): void {
  if (!policyGuards(locked)) return;
  if (!locked.cancellation_enabled) {
    throw new PreconditionFailed('cancellation_disabled', 'the organization does not allow cancelling bookings');
  }
  const cutoff = locked.start_time.getTime() - locked.cancellation_cutoff_minutes * 60_000;
  if (now.getTime() >= cutoff) {
    throw new PreconditionFailed(
      'cancellation_cutoff_passed',
      `bookings can be cancelled until ${locked.cancellation_cutoff_minutes} minutes before their start`,
    );
  }
}

export function cancelBooking(deps: BookingDeps, caller: Caller, id: string, reason: unknown): Promise<BookingRow> {
  const why = validateReason(reason);
  return changeBooking(deps, caller, id, 'cancel', async (tx, locked, now) => {
    checkCancellationPolicy(locked, now);
    const row = await bookings.applyStatusForEmail(tx, locked.id, { status: 'CANCELLED', cancellationReason: why, cancelledAt: now });
    const touched = await holds.release(tx, row.id);
    await emit(tx, row, 'BOOKING_CANCELLED');
    const attendeeInvited = locked.status !== 'PENDING_CONFIRMATION' && locked.status !== 'DRAFT';
    await enqueueBookingEmail(tx, { bookingId: row.id, kind: 'cancelled', booking: row, attendeeInvited });
    await enqueueCalendarWrites(tx, [row.id]);
    return { booking: row, touched };
  });
}

export { emit, emitEach };
