import type { Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import { insertMessages } from '../../db/queries/webhook-deliveries.ts';
import type { Scope } from '../../db/queries/webhooks.ts';
import { claimTestSlot } from '../../db/queries/webhooks.ts';
import { NotFound, RateLimited } from '../errors.ts';
import { enqueueFirstAttempts, messageBody } from './dispatch.ts';
import { newMessageId, newTestEventId } from './ids.ts';

export const TEST_INTERVAL_SECONDS = 60;

/** Sample booking data in the shape of GET /bookings/{id}, clearly not a real booking. */
export function sampleBooking(now: Date, mode: 'test' | 'live') {
  const start = new Date(Math.ceil(now.getTime() / 3_600_000) * 3_600_000 + 86_400_000);
  return {
    id: 'bkg_test_sample',
    status: 'SCHEDULED',
    event_type_id: 'et_test_sample',
    start_time: start.toISOString(),
    end_time: new Date(start.getTime() + 30 * 60_000).toISOString(),
    attendee: { name: 'Test Attendee', email: 'attendee@example.com', phone: null, timezone: 'UTC' },
    custom_fields: {},
    metadata: {},
    external_id: null,
    assigned_to_id: null,
    host_ids: [],
    cancellation_reason: null,
    cancelled_at: null,
    rescheduled_from: null,
    rescheduled_to: null,
    livemode: mode === 'live',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
}

/**
 * POST /webhooks/{id}/test: queues one BOOKING_CREATED delivery marked `"test": true` with sample
 * data. Once a minute per webhook, decided by a conditional update in the database so every
 * process agrees. One attempt, no retries; it also goes to a disabled webhook, to check a fix
 * before re-enabling it. Its outcome counts like any attempt's (decisions §5): a failure adds to
 * the streak, a success ends it (a disabled webhook stays disabled until PATCH re-enables it).
 */
export async function sendTestEvent(db: Pool, scope: Scope, id: string, now: Date) {
  return transaction(db, async (tx) => {
    const slot = await claimTestSlot(tx, scope, id, now, TEST_INTERVAL_SECONDS);
    if (!slot) throw new NotFound(`webhook ${id} not found`);
    if (!slot.claimed) {
      const last = slot.previous ?? now;
      const wait = TEST_INTERVAL_SECONDS - (now.getTime() - last.getTime()) / 1000;
      throw new RateLimited(`webhook test: at most 1 per ${TEST_INTERVAL_SECONDS} s per webhook`, wait);
    }
    const eventId = newTestEventId();
    const body = messageBody({ type: 'BOOKING_CREATED', timestamp: now.toISOString(), data: sampleBooking(now, scope.mode) }, id, true);
    const inserted = await insertMessages(tx, [
      { id: newMessageId(), webhook_id: id, event_id: eventId, event_type: 'BOOKING_CREATED', is_test: true, body },
    ]);
    await enqueueFirstAttempts(tx, inserted);
    return { webhook_id: id, event: 'BOOKING_CREATED' as const, event_id: eventId, message_id: inserted[0]!.id };
  });
}
