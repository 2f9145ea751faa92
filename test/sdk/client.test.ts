import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Booking, BookingServiceClient, Slot } from '../../sdk/src/index.ts';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  OPERATIONS,
  PermissionError,
  PreconditionError,
  WebhookVerificationError,
  createClient,
  verifyWebhook,
} from '../../sdk/src/index.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import type { HttpsReceiver } from '../helpers/https-receiver.ts';
import { startHttpsReceiver } from '../helpers/https-receiver.ts';
import { until } from '../helpers/webhook-events.ts';

// The SDK against the real service on a real port, real clock (webhook timestamps must be current
// for standardwebhooks to accept them), with the job worker routing bookings and sending webhooks.
let t: TestApp;
let rx: HttpsReceiver;
let client: BookingServiceClient;

before(async () => {
  rx = await startHttpsReceiver();
  t = await startApp({ worker: true, env: { WEBHOOK_CA_FILE: rx.caFile, WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' } });
  client = createClient({ apiKey: KEYS.secret, baseUrl: t.url });
});
after(async () => {
  await t?.close();
  await rx?.close();
});

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Free slots of an event type over the next two weeks, through the SDK. */
async function freeSlots(eventTypeId: string): Promise<Slot[]> {
  const { slots, totalSlots } = await client.availability.get({
    event_type_id: eventTypeId,
    start_date: day(2),
    end_date: day(16),
    timezone: 'UTC',
  });
  assert.equal(totalSlots, slots.length);
  assert.ok(slots.length > 0, `${eventTypeId} has free slots`);
  return slots;
}

function onboarding(start: string, email = 'grace@example.com') {
  return { event_type_id: 'et_onboarding', requested_time: start, attendee: { name: 'Grace Hopper', email, timezone: 'America/New_York' } };
}

async function waitForStatus(id: string, status: Booking['status']): Promise<Booking> {
  return until(
    async () => {
      const b = await client.bookings.get(id);
      return b.status === status && b;
    },
    10_000,
    `booking ${id} ${status}`,
  );
}

describe('SDK against the real service', () => {
  it('covers every operation of the served OpenAPI document, each through a client method', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    const covered = Object.values(OPERATIONS).map((o) => `${o.method} ${o.path}`);
    assert.deepEqual([...covered].sort(), [...documented].sort());
    for (const name of Object.keys(OPERATIONS)) {
      const [resource, method] = name.split('.') as [string, string];
      const group = (client as unknown as Record<string, Record<string, unknown>>)[resource];
      assert.equal(typeof group?.[method], 'function', `client.${name}()`);
    }
  });

  it('walks a booking through its life: create, route, read, update, reschedule, confirm, complete; cancel and no-show', async () => {
    assert.deepEqual(await client.health.check(), { status: 'ok' });
    const types = await client.eventTypes.list();
    assert.ok(types.some((e) => e.id === 'et_intro_call'));
    const intro = await client.eventTypes.get('et_intro_call');
    assert.deepEqual(
      intro.custom_fields.map((f) => f.key),
      ['company', 'topic'],
    );
    const form = await client.eventTypes.fields('et_intro_call');
    assert.equal(form.custom_fields.find((f) => f.key === 'topic')?.type, 'SELECT');

    const [first, ...rest] = await freeSlots('et_intro_call');
    const created = await client.bookings.create({
      event_type_id: 'et_intro_call',
      requested_time: first!.start,
      attendee: { name: 'Ada Lovelace', email: 'ada@example.com', timezone: 'Europe/London' },
      custom_fields: { company: 'Analytical Engines', topic: 'pensions' },
      metadata: { crm_id: 42 },
      external_id: 'crm-42',
    });
    assert.equal(created.status, 'DRAFT');
    assert.equal(created.start_time, first!.start);
    const scheduled = await waitForStatus(created.id, 'SCHEDULED');
    assert.ok(scheduled.assigned_to_id, 'routing assigned a member');
    assert.equal((await client.bookings.getByExternalId('crm-42')).id, created.id);

    const updated = await client.bookings.update(created.id, { attendee: { phone: '+44 20 7946 0958' } });
    assert.equal(updated.attendee.phone, '+44 20 7946 0958');

    const later = rest.find((s) => Date.parse(s.start) >= Date.parse(first!.start) + 86_400_000)!;
    const moved = await client.bookings.reschedule(created.id, { start_time: later.start, reason: 'clash' });
    assert.equal(moved.status, 'RESCHEDULED');
    assert.equal(moved.rescheduled_from, created.id);
    assert.equal((await client.bookings.get(created.id)).status, 'CANCELLED');
    assert.equal((await client.bookings.confirm(moved.id)).status, 'SCHEDULED');
    assert.equal((await client.bookings.complete(moved.id)).status, 'COMPLETED');

    const [a, b] = await freeSlots('et_onboarding');
    const toCancel = await client.bookings.create(onboarding(a!.start));
    await waitForStatus(toCancel.id, 'SCHEDULED');
    const cancelled = await client.bookings.cancel(toCancel.id, { reason: 'no longer needed' });
    assert.equal(cancelled.status, 'CANCELLED');
    assert.equal(cancelled.cancellation_reason, 'no longer needed');
    const absent = await client.bookings.create(onboarding(b!.start));
    await waitForStatus(absent.id, 'SCHEDULED');
    assert.equal((await client.bookings.noShow(absent.id)).status, 'NO_SHOW');
  });

  it('iterates a list across cursor pages without loss or repeat', async () => {
    const email = 'pages@example.com';
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const [slot] = await freeSlots('et_onboarding');
      ids.push((await client.bookings.create(onboarding(slot!.start, email))).id);
    }
    const seen: string[] = [];
    for await (const booking of client.bookings.list({ attendee_email: email, limit: 2 })) seen.push(booking.id);
    assert.deepEqual([...seen].sort(), [...ids].sort());
    assert.equal(new Set(seen).size, seen.length);

    const pages = [];
    for await (const page of client.bookings.list({ attendee_email: email, limit: 2 }).pages()) pages.push(page);
    assert.deepEqual(
      pages.map((p) => p.bookings.length),
      [2, 2, 1],
    );
    assert.deepEqual(
      pages.map((p) => p.pagination.has_more),
      [true, true, false],
    );
    assert.equal(pages[2]!.pagination.next_cursor, null);
    assert.equal((await client.bookings.list({ attendee_email: email, limit: 2 }).toArray(3)).length, 3);
  });

  it('throws typed errors carrying status, type, code, message and request id', async () => {
    const missing = await client.bookings.get('bkg_does_not_exist', { requestId: 'trace-sdk-404' }).catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError);
    assert.equal(missing.status, 404);
    assert.equal(missing.type, 'not_found_error');
    assert.equal(missing.code, 'not_found');
    assert.equal(missing.requestId, 'trace-sdk-404');
    assert.match(missing.message, /bkg_does_not_exist/);

    const invalid = await client.bookings
      .create({ event_type_id: 'et_onboarding', requested_time: new Date().toISOString(), attendee: { name: 'X', email: 'not-an-email' } })
      .catch((e: unknown) => e);
    assert.ok(invalid instanceof InvalidRequestError);
    assert.equal(invalid.code, 'validation_error');
    assert.equal(invalid.field, 'attendee.email');

    const [slot] = await freeSlots('et_onboarding');
    await client.bookings.create(onboarding(slot!.start));
    const taken = await client.bookings.create(onboarding(slot!.start, 'late@example.com')).catch((e: unknown) => e);
    assert.ok(taken instanceof ConflictError, String(taken));
    assert.equal(taken.status, 409);

    const publishable = createClient({ apiKey: KEYS.publishableAnyOrigin, baseUrl: `${t.url}/v1` });
    const refused = await publishable.bookings
      .list()
      .toArray()
      .catch((e: unknown) => e);
    assert.ok(refused instanceof PermissionError);
    assert.equal(refused.code, 'forbidden');
    assert.ok((await publishable.eventTypes.list()).length > 0, 'a publishable key reads event types; baseUrl may end in /v1');
  });

  it('sends an Idempotency-Key with every POST and DELETE: a retry replays, another body is refused', async () => {
    const sent: { method: string; key: string | null }[] = [];
    const recording = createClient({
      apiKey: KEYS.secret,
      baseUrl: t.url,
      fetch: async (input, init) => {
        sent.push({ method: String(init?.method), key: new Headers(init?.headers).get('idempotency-key') });
        return fetch(input, init);
      },
    });
    const [slot, other] = await freeSlots('et_onboarding');
    const first = await recording.bookings.create(onboarding(slot!.start));
    await recording.bookings.get(first.id);
    await recording.bookings.cancel(first.id);
    assert.deepEqual(
      sent.map((s) => s.method),
      ['POST', 'GET', 'DELETE'],
    );
    assert.match(sent[0]!.key!, /^[0-9a-f-]{36}$/, 'a generated UUID');
    assert.equal(sent[1]!.key, null, 'none on GET');
    assert.ok(sent[2]!.key && sent[2]!.key !== sent[0]!.key, 'a fresh one per call');

    const idempotencyKey = `order-${Date.now()}`;
    const once = await client.bookings.create(onboarding(other!.start), { idempotencyKey });
    const again = await client.bookings.create(onboarding(other!.start), { idempotencyKey });
    assert.equal(again.id, once.id, 'one booking, not two');
    assert.equal(again.idempotent_replay, true);
    const reused = await client.bookings
      .create(onboarding(other!.start, 'someone@example.com'), { idempotencyKey })
      .catch((e: unknown) => e);
    assert.ok(reused instanceof PreconditionError);
    assert.equal(reused.code, 'idempotency_key_reused');
  });

  it('calls the other resources: event types, free/busy, members, calendars, webhooks', async () => {
    const created = await client.eventTypes.create({
      team_id: 'team_support',
      name: 'SDK check',
      duration: 20,
      slug: `sdk-check-${Date.now()}`,
      workload: { prep: 0, meeting: 20, implementation: 0, admin: 0 },
    });
    const { event_type, warning } = await client.eventTypes.update(created.id, { name: 'SDK check (renamed)' });
    assert.equal(event_type.name, 'SDK check (renamed)');
    assert.equal(warning, null);
    assert.equal((await client.eventTypes.delete(created.id)).id, created.id);

    const busy = await client.freebusy.get(MEMBERS.priya, { start: `${day(3)}T00:00:00Z`, end: `${day(4)}T00:00:00Z`, time_slot: 60 });
    assert.equal(busy.slots.length, 24);

    const members = await client.teamMembers.list({ limit: 1 }).toArray();
    assert.equal(members.length, 3, 'three pages of one');
    assert.equal((await client.teamMembers.get(MEMBERS.amara)).name, 'Amara Okafor');
    const available = await client.teamMembers.available({ date: day(7), limit: 2 }).toArray();
    assert.equal(available.length, 3);
    assert.equal(typeof available[0]!.availability.is_available, 'boolean');

    const calendars = await client.calendars.list({ limit: 1 }).toArray();
    assert.ok(calendars.length >= 2, 'offset pages with hasMore');
    assert.ok((await client.calendars.forUser(MEMBERS.amara)).calendars.length > 0);

    const hook = await client.webhooks.create({ url: `${rx.origin}/other`, events: ['BOOKING_CANCELLED'], description: 'sdk' });
    assert.match(hook.secret, /^whsec_/);
    assert.ok((await client.webhooks.list()).some((w) => w.id === hook.id));
    assert.equal((await client.webhooks.get(hook.id)).description, 'sdk');
    assert.deepEqual((await client.webhooks.update(hook.id, { events: ['BOOKING_CREATED'] })).events, ['BOOKING_CREATED']);
    const test = await client.webhooks.test(hook.id);
    const [delivery] = await rx.waitFor(1, { path: '/other' });
    const sample = verifyWebhook(delivery!.body, delivery!.headers, hook.secret);
    assert.equal(sample.test, true);
    assert.equal(delivery!.headers['webhook-id'], test.message_id);
    const records = await until(
      async () => {
        const all = await client.webhooks.deliveries(hook.id, { limit: 1 }).toArray();
        return all.some((d) => d.status === 'succeeded') && all;
      },
      10_000,
      'the test delivery recorded',
    );
    assert.equal(records[0]!.event, 'BOOKING_CREATED');
    assert.equal(typeof (await client.webhooks.stats(hook.id)), 'object');
    const rotated = await client.webhooks.rotateSecret(hook.id);
    assert.notEqual(rotated.secret, hook.secret);
    assert.equal((await client.webhooks.delete(hook.id)).id, hook.id);
    const gone = await client.webhooks.get(hook.id).catch((e: unknown) => e);
    assert.ok(gone instanceof NotFoundError);
  });

  it('verifies a real signed delivery into a typed event, and refuses a tampered one', async () => {
    const hook = await client.webhooks.create({ url: `${rx.origin}/bookings`, events: ['BOOKING_CREATED', 'BOOKING_CANCELLED'] });
    const [slot] = await freeSlots('et_onboarding');
    const booking = await client.bookings.create(onboarding(slot!.start, 'signed@example.com'));
    const [received] = await rx.waitFor(1, { path: '/bookings' });

    const event = verifyWebhook(received!.body, received!.headers, hook.secret);
    assert.equal(event.event, 'BOOKING_CREATED');
    assert.equal(event.webhook_id, hook.id);
    assert.equal(event.data.id, booking.id);
    assert.equal(event.data.attendee.email, 'signed@example.com');
    // the same with a fetch Headers object and the body as bytes
    const headers = new Headers(Object.entries(received!.headers).map(([k, v]) => [k, String(v)] as [string, string]));
    assert.equal(verifyWebhook(new TextEncoder().encode(received!.body), headers, hook.secret).data.id, booking.id);

    assert.throws(
      () => verifyWebhook(received!.body.replace('signed@', 'forged@'), received!.headers, hook.secret),
      WebhookVerificationError,
    );
    const { secret: otherSecret } = await client.webhooks.create({ url: `${rx.origin}/unused`, events: ['BOOKING_CREATED'] });
    assert.throws(() => verifyWebhook(received!.body, received!.headers, otherSecret), WebhookVerificationError);
    assert.throws(() => verifyWebhook(received!.body, {}, hook.secret), /missing webhook-id/);
  });
});
