import { Type } from 'typebox';
import { DateTime, Nullable } from './common.ts';

export const BookingStatus = Type.Union([
  Type.Literal('DRAFT'),
  Type.Literal('SCHEDULED'),
  Type.Literal('PENDING_CONFIRMATION'),
  Type.Literal('RESCHEDULED'),
  Type.Literal('CANCELLED'),
  Type.Literal('COMPLETED'),
  Type.Literal('NO_SHOW'),
]);

export const AttendeeOut = Type.Object({
  name: Type.String(),
  email: Type.String(),
  phone: Nullable(Type.String()),
  timezone: Nullable(Type.String()),
});

/** Must list every field bookingJson() returns: the serializer drops the rest. */
export const Booking = Type.Object({
  id: Type.String(),
  status: BookingStatus,
  event_type_id: Type.String(),
  start_time: DateTime,
  end_time: DateTime,
  attendee: AttendeeOut,
  custom_fields: Type.Record(Type.String(), Type.Unknown()),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  external_id: Nullable(Type.String()),
  assigned_to_id: Nullable(Type.String()),
  host_ids: Type.Array(Type.String()),
  cancellation_reason: Nullable(Type.String()),
  cancelled_at: Nullable(DateTime),
  rescheduled_from: Nullable(Type.String()),
  rescheduled_to: Nullable(Type.String()),
  livemode: Type.Boolean(),
  created_at: DateTime,
  updated_at: DateTime,
  idempotent_replay: Type.Optional(Type.Boolean()),
});

export const BookingEnvelope = Type.Object({
  success: Type.Literal(true),
  booking: Booking,
  idempotent_replay: Type.Optional(Type.Boolean()),
});

export const BookingList = Type.Object({
  success: Type.Literal(true),
  bookings: Type.Array(Booking),
  pagination: Type.Object({ next_cursor: Nullable(Type.String()), has_more: Type.Boolean() }),
});
