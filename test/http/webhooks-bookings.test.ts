import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { documentValidator } from '../helpers/openapi.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { until, verifyDelivery } from '../helpers/webhook-events.ts';
import { introBody, slots, waitForStatusChange } from './bookings-helpers.ts';

// The real clock: deliveries carry webhook-timestamp, which standardwebhooks checks against now.
let t: TestApp;
let rx: HttpsReceiver;
let secret: string;

before(async () => {
  rx = await startHttpsReceiver();
  t = await startApp({ worker: true, env: { WEBHOOK_CA_FILE: rx.caFile } });
  const res = await t.request('POST', '/v1/webhooks', {
    key: KEYS.secret,
    body: {
      url: `${rx.origin}/bookings`,
      events: [
        'BOOKING_CREATED',
        'BOOKING_UPDATED',
        'BOOKING_CANCELLED',
        'BOOKING_RESCHEDULED',
        'BOOKING_COMPLETED',
        'BOOKING_NO_SHOW',
        'ASSIGNMENT_CHANGED',
      ],
    },
  });
  assert.equal(res.status, 201, res.text);
  secret = res.body.webhook.secret;
});
after(async () => {
  await t.close();
  await rx.close();
});

type Payload = ReturnType<typeof verifyDelivery>;
const received = (): Payload[] => rx.on('/bookings').map((r) => verifyDelivery(secret, r));

/** Waits for the delivery of `event` about booking `id`. */
async function delivered(event: string, id: string): Promise<Payload> {
  return until(async () => received().find((p) => p.event === event && p.data.id === id), 10_000, `${event} for ${id}`);
}

const getBooking = async (id: string) => (await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.secret })).body.booking;

/** The 201 answer of each create, by booking id. */
const createdAnswers = new Map<string, unknown>();

async function book(start: string): Promise<string> {
  const res = await t.request('POST', '/v1/bookings', { key: KEYS.secret, body: introBody(start) });
  assert.equal(res.status, 201, res.text);
  createdAnswers.set(res.body.booking.id, res.body.booking);
  return res.body.booking.id;
}

describe('each of the seven events from real booking operations, verified with standardwebhooks', () => {
  it('create, routing, update, reschedule, complete, no-show and cancel', async () => {
    const from = new Date(Date.now() + 2 * 86_400_000);
    const list = await slots(t, 'et_intro_call', from.toISOString(), new Date(from.getTime() + 14 * 86_400_000).toISOString());
    // slots far enough apart that no buffer or round-robin choice makes one block another
    const starts = list.map((s) => s.start).filter((_s, i) => i % 7 === 0);
    assert.ok(starts.length >= 4, 'enough free slots');

    const a = await book(starts[0]!);
    const created = await delivered('BOOKING_CREATED', a);
    assert.equal(created.data.status, 'DRAFT');
    // the database fills in created_at and updated_at of this payload (create_booking)
    assert.deepEqual(created.data, createdAnswers.get(a), 'data is the booking as the 201 showed it');
    const routed = await waitForStatusChange(t, a, 'DRAFT');
    const assigned = await delivered('ASSIGNMENT_CHANGED', a);
    assert.equal(assigned.data.assigned_to_id, routed.assigned_to_id);
    assert.ok(assigned.data.assigned_to_id);

    const patch = await t.request('PATCH', `/v1/bookings/${a}`, { key: KEYS.secret, body: { attendee: { name: 'Grace Hopper' } } });
    assert.equal(patch.status, 200, patch.text);
    const updated = await delivered('BOOKING_UPDATED', a);
    assert.equal((updated.data.attendee as { name: string }).name, 'Grace Hopper');

    const moved = await t.request('POST', `/v1/bookings/${a}/reschedule`, { key: KEYS.secret, body: { start_time: starts[1] } });
    assert.equal(moved.status, 200, moved.text);
    const b = moved.body.booking.id as string;
    const rescheduled = await delivered('BOOKING_RESCHEDULED', b);
    assert.equal(rescheduled.data.rescheduled_from, a, 'the new booking, naming the old one');
    assert.equal(rescheduled.data.start_time, starts[1]);

    assert.equal((await t.request('POST', `/v1/bookings/${b}/complete`, { key: KEYS.secret })).status, 200);
    const completed = await delivered('BOOKING_COMPLETED', b);
    assert.deepEqual(completed.data, await getBooking(b), 'data is the booking as GET shows it after the change');

    const c = await book(starts[2]!);
    await waitForStatusChange(t, c, 'DRAFT');
    assert.equal((await t.request('POST', `/v1/bookings/${c}/no-show`, { key: KEYS.secret })).status, 200);
    assert.equal((await delivered('BOOKING_NO_SHOW', c)).data.status, 'NO_SHOW');

    const d = await book(starts[3]!);
    await waitForStatusChange(t, d, 'DRAFT');
    assert.equal((await t.request('DELETE', `/v1/bookings/${d}`, { key: KEYS.secret, body: { reason: 'plans changed' } })).status, 200);
    const cancelled = await delivered('BOOKING_CANCELLED', d);
    assert.equal(cancelled.data.status, 'CANCELLED');
    assert.deepEqual(cancelled.data, await getBooking(d));

    const seen = new Set(received().map((p) => p.event));
    assert.deepEqual([...seen].sort(), [
      'ASSIGNMENT_CHANGED',
      'BOOKING_CANCELLED',
      'BOOKING_COMPLETED',
      'BOOKING_CREATED',
      'BOOKING_NO_SHOW',
      'BOOKING_RESCHEDULED',
      'BOOKING_UPDATED',
    ]);
    assert.ok(received().every((p) => p.webhook_id && !Number.isNaN(Date.parse(p.timestamp))));
  });

  it("data is the 201's booking as text: its key order, the metadata as sent", async () => {
    const from = new Date(Date.now() + 20 * 86_400_000);
    const [slot] = await slots(t, 'et_intro_call', from.toISOString(), new Date(from.getTime() + 7 * 86_400_000).toISOString());
    const metadata = '{"zeta":1,"id":12345678901234567890,"price":1.0,"a":{"y":[2.50],"b":null}}';
    const res = await t.request('POST', '/v1/bookings', {
      key: KEYS.secret,
      rawBody: JSON.stringify(introBody(slot!.start)).replace(/}$/, `,"metadata":${metadata}}`),
    });
    assert.equal(res.status, 201, res.text);
    const booking = res.text.slice(res.text.indexOf('"booking":') + '"booking":'.length, -1);
    assert.ok(booking.includes(`"metadata":${metadata}`), booking);
    const id = res.body.booking.id as string;
    await delivered('BOOKING_CREATED', id);
    const raw = rx.on('/bookings').find((r) => verifyDelivery(secret, r).data.id === id && r.body.includes('BOOKING_CREATED'))!;
    assert.ok(raw.body.includes(booking), raw.body);
  });

  it('match the payload schema the OpenAPI document gives each event name', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body;
    const compile = documentValidator(doc);
    const payloads = received();
    assert.ok(payloads.length >= 7);
    for (const p of payloads) {
      const check = compile(doc.webhooks[p.event].post.requestBody.content['application/json'].schema);
      assert.ok(check(p), `${p.event}: ${JSON.stringify(check.errors)}`);
    }
  });
});
