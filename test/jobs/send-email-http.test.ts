import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import type { ReceivedMail, SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { calendarPart, icsProp, startSmtpReceiver } from '../helpers/smtp-receiver.ts';
import { NOW, created, introBody, slots, waitForStatusChange } from '../http/bookings-helpers.ts';

let smtp: SmtpReceiver;
let t: TestApp;

before(async () => {
  smtp = await startSmtpReceiver();
  t = await startApp({ worker: true, now: NOW, env: { SMTP_URL: smtp.url } });
});
after(async () => {
  await t.close();
  await smtp.close();
});

const about = (bookingId: string, address: string) => (m: ReceivedMail) =>
  m.parsed.headers.get('x-booking-id') === bookingId && m.envelopeTo.includes(address);

describe('booking emails over HTTP', () => {
  it('create → routing schedules it → confirmation with REQUEST; cancel → METHOD:CANCEL with the same UID', async () => {
    const [slot] = await slots(t, 'et_intro_call', '2026-12-02T00:00:00Z', '2026-12-03T00:00:00Z');
    assert.ok(slot, 'the demo data lists a slot');
    const booking = await created(
      t,
      introBody(slot.start, { attendee: { name: 'Ada Lovelace', email: 'ada.http@example.com', timezone: 'Europe/London' } }),
    );
    const scheduled = await waitForStatusChange(t, booking.id, 'DRAFT');
    assert.equal(scheduled.status, 'SCHEDULED');
    const host = await t.db.pool.query('select email from members where id = $1', [scheduled.assigned_to_id]);
    const hostEmail = host.rows[0].email as string;

    const [confirmation] = await smtp.waitFor(about(booking.id, 'ada.http@example.com'));
    await smtp.waitFor(about(booking.id, hostEmail));
    const invite = calendarPart(confirmation.parsed)!;
    assert.equal(invite.method, 'REQUEST');
    assert.equal(icsProp(invite.text, 'UID'), `${booking.id}@booking-service`);
    assert.equal(icsProp(invite.text, 'SEQUENCE'), '0');
    assert.equal(
      new Date(icsProp(invite.text, 'DTSTART')!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z')).toISOString(),
      slot.start,
    );

    const res = await t.request('DELETE', `/v1/bookings/${booking.id}`, { key: KEYS.secret, body: { reason: 'Plans changed' } });
    assert.equal(res.status, 200, res.text);
    const [cancellation] = await smtp.waitFor(
      (m) => about(booking.id, 'ada.http@example.com')(m) && calendarPart(m.parsed)?.method === 'CANCEL',
    );
    const cancel = calendarPart(cancellation.parsed)!;
    assert.equal(icsProp(cancel.text, 'METHOD'), 'CANCEL');
    assert.equal(icsProp(cancel.text, 'STATUS'), 'CANCELLED');
    assert.equal(icsProp(cancel.text, 'UID'), `${booking.id}@booking-service`);
    assert.equal(icsProp(cancel.text, 'SEQUENCE'), '1');
    assert.match(cancellation.parsed.text!, /Reason: Plans changed/);
    await smtp.waitFor((m) => about(booking.id, hostEmail)(m) && calendarPart(m.parsed)?.method === 'CANCEL');
  });

  it('reschedule keeps the UID with SEQUENCE 1; an email change sends SEQUENCE 2 to the new address and a CANCEL to the old one', async () => {
    const list = await slots(t, 'et_intro_call', '2026-12-03T00:00:00Z', '2026-12-04T00:00:00Z');
    const attendee = { name: 'Alan Turing', email: 'alan.http@example.com', timezone: 'Europe/London' };
    const booking = await created(t, introBody(list[0].start, { attendee }));
    await waitForStatusChange(t, booking.id, 'DRAFT');
    await smtp.waitFor(about(booking.id, attendee.email));

    const moved = await t.request('POST', `/v1/bookings/${booking.id}/reschedule`, {
      key: KEYS.secret,
      body: { start_time: list[list.length - 1].start },
    });
    assert.equal(moved.status, 200, moved.text);
    const newId = moved.body.booking.id as string;
    assert.notEqual(newId, booking.id);
    const [rescheduled] = await smtp.waitFor(about(newId, attendee.email));
    const r = calendarPart(rescheduled.parsed)!;
    assert.equal(r.method, 'REQUEST');
    assert.equal(icsProp(r.text, 'UID'), `${booking.id}@booking-service`);
    assert.equal(icsProp(r.text, 'SEQUENCE'), '1');

    const patched = await t.request('PATCH', `/v1/bookings/${newId}`, {
      key: KEYS.secret,
      body: { attendee: { email: 'alan.new@example.com' } },
    });
    assert.equal(patched.status, 200, patched.text);
    const [fresh] = await smtp.waitFor(about(newId, 'alan.new@example.com'));
    const f = calendarPart(fresh.parsed)!;
    assert.equal(f.method, 'REQUEST');
    assert.equal(icsProp(f.text, 'UID'), `${booking.id}@booking-service`);
    assert.equal(icsProp(f.text, 'SEQUENCE'), '2');
    const [withdrawn] = await smtp.waitFor((m) => about(newId, attendee.email)(m) && calendarPart(m.parsed)?.method === 'CANCEL');
    assert.equal(icsProp(calendarPart(withdrawn.parsed)!.text, 'SEQUENCE'), '2');
  });

  it('two reschedules in a row: the third booking still invites with the first UID (SEQUENCE 2), and its cancel is SEQUENCE 3', async () => {
    const list = await slots(t, 'et_intro_call', '2026-12-07T00:00:00Z', '2026-12-08T00:00:00Z');
    assert.ok(list.length >= 3, 'three slots that day');
    const attendee = { name: 'Katherine Johnson', email: 'katherine.http@example.com', timezone: 'America/New_York' };
    const first = await created(t, introBody(list[0].start, { attendee }));
    await waitForStatusChange(t, first.id, 'DRAFT');
    await smtp.waitFor(about(first.id, attendee.email));

    const second = await t.request('POST', `/v1/bookings/${first.id}/reschedule`, {
      key: KEYS.secret,
      body: { start_time: list[1].start },
    });
    assert.equal(second.status, 200, second.text);
    const secondId = second.body.booking.id as string;
    await smtp.waitFor(about(secondId, attendee.email));
    const third = await t.request('POST', `/v1/bookings/${secondId}/reschedule`, { key: KEYS.secret, body: { start_time: list[2].start } });
    assert.equal(third.status, 200, third.text);
    const thirdId = third.body.booking.id as string;
    assert.equal(third.body.booking.rescheduled_from, secondId);

    const [invite] = await smtp.waitFor(about(thirdId, attendee.email));
    const i = calendarPart(invite.parsed)!;
    assert.equal(i.method, 'REQUEST');
    assert.equal(icsProp(i.text, 'UID'), `${first.id}@booking-service`);
    assert.equal(icsProp(i.text, 'SEQUENCE'), '2');

    const cancelled = await t.request('DELETE', `/v1/bookings/${thirdId}`, { key: KEYS.secret });
    assert.equal(cancelled.status, 200, cancelled.text);
    const [withdrawn] = await smtp.waitFor((m) => about(thirdId, attendee.email)(m) && calendarPart(m.parsed)?.method === 'CANCEL');
    const c = calendarPart(withdrawn.parsed)!;
    assert.equal(icsProp(c.text, 'UID'), `${first.id}@booking-service`);
    assert.equal(icsProp(c.text, 'SEQUENCE'), '3');
  });

  it('requires_confirmation: the hosts are asked first, and the confirm sends the first invitation', async () => {
    const list = await slots(t, 'et_planning_session', '2026-12-02T00:00:00Z', '2026-12-05T00:00:00Z');
    assert.ok(list.length > 0, 'the demo data lists a collective slot');
    const attendee = { name: 'Grace Hopper', email: 'grace.http@example.com', timezone: 'America/New_York' };
    const booking = await created(t, { event_type_id: 'et_planning_session', requested_time: list[0].start, attendee });
    const pending = await waitForStatusChange(t, booking.id, 'DRAFT');
    assert.equal(pending.status, 'PENDING_CONFIRMATION');
    const hosts = (
      await t.db.pool.query('select m.email from bookings b join members m on m.id = any(b.host_ids) where b.id = $1', [booking.id])
    ).rows.map((r) => r.email as string);
    assert.ok(hosts.length >= 2, 'a collective booking holds every host');
    for (const h of hosts) {
      const [ask] = await smtp.waitFor(about(booking.id, h));
      assert.match(ask.parsed.subject!, /Please confirm/);
      assert.equal(calendarPart(ask.parsed)!.method, 'REQUEST');
      assert.equal(icsProp(calendarPart(ask.parsed)!.text, 'STATUS'), 'TENTATIVE');
    }
    const [note] = await smtp.waitFor(about(booking.id, attendee.email));
    assert.match(note.parsed.subject!, /Request received/);

    const confirmed = await t.request('POST', `/v1/bookings/${booking.id}/confirm`, { key: KEYS.secret });
    assert.equal(confirmed.status, 200, confirmed.text);
    const [invite] = await smtp.waitFor((m) => about(booking.id, attendee.email)(m) && calendarPart(m.parsed) !== undefined);
    assert.equal(calendarPart(invite.parsed)!.method, 'REQUEST');
    assert.equal(icsProp(calendarPart(invite.parsed)!.text, 'SEQUENCE'), '1', "after the hosts' tentative invitation (0)");
    assert.equal(icsProp(calendarPart(invite.parsed)!.text, 'STATUS'), 'CONFIRMED');
    for (const h of hosts) await smtp.waitFor((m) => about(booking.id, h)(m) && calendarPart(m.parsed) !== undefined);
  });
});
