import type { BookingRow } from '../../db/schema.ts';

/** The booking as every endpoint, webhook payload and idempotent replay shows it. */
export function bookingJson(b: BookingRow) {
  return {
    id: b.id,
    status: b.status,
    event_type_id: b.event_type_id,
    start_time: b.start_time.toISOString(),
    end_time: b.end_time.toISOString(),
    attendee: {
      name: b.attendee.name,
      email: b.attendee.email,
      phone: b.attendee.phone ?? null,
      timezone: b.attendee.timezone ?? null,
    },
    custom_fields: b.custom_fields,
    metadata: b.metadata,
    external_id: b.external_id,
    assigned_to_id: b.assigned_to_id,
    host_ids: b.host_ids,
    cancellation_reason: b.cancellation_reason,
    cancelled_at: b.cancelled_at ? b.cancelled_at.toISOString() : null,
    rescheduled_from: b.rescheduled_from,
    rescheduled_to: b.rescheduled_to,
    livemode: b.mode === 'live',
    created_at: b.created_at.toISOString(),
    updated_at: b.updated_at.toISOString(),
  };
}

export type BookingJson = ReturnType<typeof bookingJson>;
