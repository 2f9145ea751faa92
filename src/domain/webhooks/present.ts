import type { WebhookDeliveryRow, WebhookRow } from '../../db/schema.ts';
import type { BookingEventType } from '../events/record.ts';

/** A webhook as every read shows it: never its secret. */
export function webhookJson(w: WebhookRow) {
  return {
    id: w.id,
    url: w.url,
    // written only through parseEventList (create, update), which keeps known names alone
    events: w.events as BookingEventType[],
    description: w.description,
    is_active: w.is_active,
    failure_reason: w.failure_reason,
    rotated_at: w.rotated_at ? w.rotated_at.toISOString() : null,
    livemode: w.mode === 'live',
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
  };
}

export type WebhookJson = ReturnType<typeof webhookJson>;

/** One delivery attempt, with the fields of decisions.md §5. */
export function deliveryJson(d: WebhookDeliveryRow) {
  return {
    id: d.id,
    webhook_id: d.webhook_id,
    event: d.event_type as BookingEventType, // the events table's check constraint
    event_id: d.event_id,
    message_id: d.message_id,
    attempt: d.attempt,
    status: d.status,
    response_status: d.response_status,
    duration_ms: d.duration_ms,
    error: d.error,
    created_at: d.created_at.toISOString(),
    next_attempt_at: d.next_attempt_at ? d.next_attempt_at.toISOString() : null,
  };
}
