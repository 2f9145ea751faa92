import * as bookings from '../../db/queries/bookings.ts';
import { enqueueBookingEmail } from '../email/enqueue.ts';
import { ValidationError } from '../errors.ts';
import type { Applied } from './change.ts';
import { changeBooking, emit } from './change.ts';
import type { Caller } from '../vocabulary.ts';
import type { BookingDeps } from './create.ts';
import type { AttendeeInput } from './validate.ts';
import { validateAttendeePatch } from './validate.ts';
import type { BookingRow } from '../../db/schema.ts';

const ATTENDEE_FIELDS = ['name', 'email', 'phone', 'timezone'];

/**
 * PATCH accepts only attendee fields (api-spec). Unlike elsewhere, fields it does not name are
 * refused rather than ignored, so a client trying to move or re-status a booking through PATCH
 * (start_time, status, event_type_id, team_id, api_key_id, ...) learns it did nothing.
 */
export function checkPatchBody(body: unknown): AttendeeInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError('body must be an object with "attendee"', 'attendee');
  }
  for (const key of Object.keys(body)) {
    if (key !== 'attendee') throw new ValidationError(`field "${key}" cannot be changed: PATCH updates attendee details only`, key);
  }
  const attendee = (body as { attendee?: unknown }).attendee;
  if (attendee === undefined) throw new ValidationError('field "attendee" is required: nothing to update', 'attendee');
  if (!attendee || typeof attendee !== 'object' || Array.isArray(attendee)) {
    throw new ValidationError('field "attendee" must be an object', 'attendee');
  }
  const keys = Object.keys(attendee);
  for (const key of keys) {
    if (!ATTENDEE_FIELDS.includes(key)) {
      throw new ValidationError(`field "attendee.${key}" cannot be changed: allowed are ${ATTENDEE_FIELDS.join(', ')}`, `attendee.${key}`);
    }
  }
  if (keys.length === 0) throw new ValidationError('field "attendee" has no fields to update', 'attendee');
  return attendee as AttendeeInput;
}

export function updateBookingAttendee(deps: BookingDeps, caller: Caller, id: string, body: unknown): Promise<BookingRow> {
  // Bad data is a 400 before anything is locked.
  const patch = validateAttendeePatch(checkPatchBody(body));
  return changeBooking(deps, caller, id, 'update_attendee', async (tx, locked, now): Promise<Applied> => {
    const next = { ...locked.attendee, ...patch };
    const row = await bookings.updateAttendee(tx, locked.id, next);
    await emit(tx, row, 'BOOKING_UPDATED', now);
    const previous = locked.attendee.email;
    if (next.email.toLowerCase() !== previous.toLowerCase()) {
      await enqueueBookingEmail(tx, { bookingId: row.id, kind: 'email_changed', previousEmail: previous });
    }
    return { booking: row, touched: [] };
  });
}
