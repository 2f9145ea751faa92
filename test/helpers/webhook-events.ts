import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Pool } from '../../src/db/pool.ts';
import { transaction } from '../../src/db/pool.ts';
import { insertBooking } from '../../src/db/queries/bookings.ts';
import { bookingJson } from '../../src/domain/bookings/present.ts';
import type { BookingEventType } from '../../src/domain/events/record.ts';
import { recordEvents } from '../../src/domain/events/record.ts';
import type { Received } from './https-receiver.ts';

/**
 * A booking row and one outbox event for it, committed together the way a booking use case
 * does it: for delivery tests that do not depend on the booking endpoints.
 */
export async function recordBookingEvent(
  pool: Pool,
  type: BookingEventType,
  opts: { mode?: 'test' | 'live'; organizationId?: string; eventTypeId?: string } = {},
) {
  const mode = opts.mode ?? 'test';
  const organizationId = opts.organizationId ?? 'org_northwind';
  return transaction(pool, async (tx) => {
    const start = new Date(Date.now() + 7 * 86_400_000);
    const row = await insertBooking(tx, {
      id: `bkg_${randomBytes(12).toString('hex')}`,
      organization_id: organizationId,
      mode,
      event_type_id: opts.eventTypeId ?? (organizationId === 'org_northwind' ? 'et_onboarding' : 'et_globex_demo'),
      status: type === 'BOOKING_CANCELLED' ? 'CANCELLED' : 'SCHEDULED',
      start_time: start,
      end_time: new Date(start.getTime() + 30 * 60_000),
      attendee: { name: 'Ada Lovelace', email: 'ada@example.com' },
      custom_fields: {},
      metadata: {},
      external_id: null,
      assigned_to_id: null,
      host_ids: [],
      rescheduled_from: null,
    });
    const booking = bookingJson(row);
    const [eventId] = await recordEvents(tx, [{ organizationId, mode, type, booking, at: new Date() }]);
    return { eventId, booking };
  });
}

/** Verifies a received delivery with the stock standardwebhooks library; throws when it does not verify. */
export function verifyDelivery(
  secret: string,
  r: Received,
): { event: string; timestamp: string; webhook_id: string; data: Record<string, unknown>; test?: boolean } {
  const headers = {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(r.body, headers) as ReturnType<typeof verifyDelivery>;
}

export async function until<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
