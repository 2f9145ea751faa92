import { Webhook, WebhookVerificationError as LibraryVerificationError } from 'standardwebhooks';
import type { Booking } from './client.ts';

/** The event names a webhook may subscribe to. */
export const WEBHOOK_EVENTS = [
  'BOOKING_CREATED',
  'BOOKING_UPDATED',
  'BOOKING_CANCELLED',
  'BOOKING_RESCHEDULED',
  'BOOKING_COMPLETED',
  'BOOKING_NO_SHOW',
  'ASSIGNMENT_CHANGED',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** One delivery's body; `data` is the booking as GET /v1/bookings/{id} shows it after the change. */
export interface WebhookEventOf<E extends WebhookEventName> {
  event: E;
  /** ISO 8601: when the change happened. */
  timestamp: string;
  webhook_id: string;
  /** Present (true) on the sample sent by POST /v1/webhooks/{id}/test. */
  test?: true;
  data: Booking;
}
export type WebhookEvent = { [E in WebhookEventName]: WebhookEventOf<E> }[WebhookEventName];

export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

function header(headers: HeadersLike, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  const first = Array.isArray(value) ? value[0] : value;
  if (!first) throw new WebhookVerificationError(`missing ${name} header`);
  return first;
}

/**
 * Checks a delivery's Standard Webhooks signature (webhook-id, webhook-timestamp within 5 minutes,
 * webhook-signature) against the webhook's `whsec_` secret and answers the typed event. Pass the
 * body exactly as received: the raw string or bytes, not re-serialised JSON.
 */
export function verifyWebhook(body: string | Uint8Array, headers: HeadersLike, secret: string): WebhookEvent {
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const signed = {
    'webhook-id': header(headers, 'webhook-id'),
    'webhook-timestamp': header(headers, 'webhook-timestamp'),
    'webhook-signature': header(headers, 'webhook-signature'),
  };
  let event: unknown;
  try {
    event = new Webhook(secret).verify(payload, signed);
  } catch (err) {
    if (err instanceof LibraryVerificationError) throw new WebhookVerificationError(err.message, { cause: err });
    throw new WebhookVerificationError(`cannot verify: ${(err as Error).message}`, { cause: err });
  }
  const e = event as Partial<WebhookEvent> | null;
  if (!e || typeof e !== 'object' || typeof e.event !== 'string' || !e.data || typeof e.data !== 'object') {
    throw new WebhookVerificationError('signed body is not a booking event');
  }
  return e as WebhookEvent;
}
