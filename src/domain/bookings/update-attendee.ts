import * as bookings from '../../db/queries/bookings.ts';
import { enqueueCalendarWrites } from '../calendars/write-back.ts';
import { enqueueBookingEmail } from '../email/enqueue.ts';
import type { Applied } from './change.ts';
import { changeBooking, emit } from './change.ts';
import type { Caller } from '../vocabulary.ts';
import type { BookingDeps } from './create.ts';
import type { AttendeeInput } from './validate.ts';
import { validateAttendeePatch } from './validate.ts';
import type { BookingRow } from '../../db/schema.ts';

/** PATCH /bookings/{id}: the attendee fields sent (the route's schema admits only those, at least one) change. */
export function updateBookingAttendee(deps: BookingDeps, caller: Caller, id: string, fields: AttendeeInput): Promise<BookingRow> {
  // Bad data is a 400 before anything is locked.
  const patch = validateAttendeePatch(fields);
  return changeBooking(deps, caller, id, 'update_attendee', async (tx, locked): Promise<Applied> => {
    const next = { ...locked.attendee, ...patch };
    const row = await bookings.updateAttendee(tx, locked.id, next);
    await emit(tx, row, 'BOOKING_UPDATED');
    const previous = locked.attendee.email;
    if (next.email.toLowerCase() !== previous.toLowerCase()) {
      await enqueueBookingEmail(tx, { bookingId: row.id, kind: 'email_changed', previousEmail: previous });
    }
    // the spec's "the external calendar event's attendees are patched"
    await enqueueCalendarWrites(tx, [row.id]);
    return { booking: row, touched: [] };
  });
}
