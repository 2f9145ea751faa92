import type { Db } from '../../db/pool.ts';
import * as bookings from '../../db/queries/bookings.ts';
import { DATE_RULE, DATE_TIME_RULE, parseDateOrDateTime } from '../../lib/dates.ts';
import { NotFound, ValidationError } from '../errors.ts';
import type { Caller } from '../vocabulary.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { bookingJson } from './present.ts';
import type { BookingRow } from '../../db/schema.ts';
import type { BookingStatus } from '../vocabulary.ts';

export async function getBooking(db: Db, caller: Caller, id: string): Promise<BookingRow> {
  const row = await bookings.findById(db, caller.organizationId, caller.mode, id);
  if (!row) throw new NotFound(`booking "${id}" not found`);
  return row;
}

export async function getBookingByExternalId(db: Db, caller: Caller, externalId: string): Promise<BookingRow> {
  const row = await bookings.findByExternalId(db, caller.organizationId, caller.mode, externalId);
  if (!row) throw new NotFound(`no booking with external_id "${externalId}"`);
  return row;
}

export interface ListQuery {
  status?: BookingStatus;
  event_type_id?: string;
  assigned_to_id?: string;
  attendee_email?: string;
  start_date?: string;
  end_date?: string;
  limit: number;
  cursor?: string;
}

/** start_date / end_date: an ISO date-time, or a date meaning its midnight UTC. */
function instant(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const t = parseDateOrDateTime(value);
  if (t === undefined) throw new ValidationError(`query parameter "${field}" must be ${DATE_RULE} or ${DATE_TIME_RULE}`, field);
  return new Date(t);
}

/** Newest first, keyset-paginated: stable while bookings are added, any page as fast as the first. */
export async function listBookings(db: Db, caller: Caller, q: ListQuery) {
  const startFrom = instant(q.start_date, 'start_date');
  const startBefore = instant(q.end_date, 'end_date');
  const after = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
  const found = await bookings.list(db, {
    organizationId: caller.organizationId,
    mode: caller.mode,
    status: q.status,
    eventTypeId: q.event_type_id,
    assignedToId: q.assigned_to_id,
    attendeeEmail: q.attendee_email,
    startFrom,
    startBefore,
    after,
    limit: q.limit + 1,
  });
  const hasMore = found.length > q.limit;
  const page = hasMore ? found.slice(0, q.limit) : found;
  const last = page[page.length - 1];
  return {
    bookings: page.map(bookingJson),
    pagination: { next_cursor: hasMore && last ? encodeCursor({ createdAt: last.cursor_at, id: last.id }) : null, has_more: hasMore },
  };
}
