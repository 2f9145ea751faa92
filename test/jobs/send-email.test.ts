import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { emailsOfBooking } from '../../src/db/queries/email-outbox.ts';
import { enqueueBookingEmail, enqueueBookingEmails } from '../../src/domain/email/enqueue.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { MEMBERS } from '../helpers/fixtures.ts';
import type { ReceivedMail, SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { calendarPart, icsLines, icsProp, startSmtpReceiver } from '../helpers/smtp-receiver.ts';
import { enqueue, insertBooking } from '../domain/email/booking-rows.ts';

const AMARA = 'amara@northwind.example';
const JONAS = 'jonas@northwind.example';

let smtp: SmtpReceiver;
let t: TestApp;

before(async () => {
  smtp = await startSmtpReceiver();
  t = await startApp({ worker: true, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Northwind Bookings <bookings@northwind.example>' } });
});
after(async () => {
  await t.close();
  await smtp.close();
});

const to = (address: string) => (m: ReceivedMail) => m.envelopeTo.includes(address);
const toAnd = (address: string, subject: RegExp) => (m: ReceivedMail) =>
  m.envelopeTo.includes(address) && subject.test(m.parsed.subject ?? '');

function ics(mail: ReceivedMail): string {
  const part = calendarPart(mail.parsed);
  assert.ok(part, `"${mail.parsed.subject}" has no text/calendar part`);
  assert.equal(part.method, icsProp(part.text, 'METHOD'), 'the MIME method parameter matches the ICS METHOD');
  return part.text;
}

async function waitUntilSettled(bookingId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const rows = await emailsOfBooking(t.db.pool, bookingId);
    if (rows.length > 0 && rows.every((r) => r.status !== 'pending')) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`emails of ${bookingId} still pending`);
}

describe('scheduled', () => {
  it('sends the attendee and the assigned host a confirmation with a REQUEST invitation in UTC', async () => {
    const id = await insertBooking(t.db.pool, {
      start: '2026-12-01T10:00:00Z',
      assignedToId: MEMBERS.amara,
      attendee: { name: 'Grace Hopper', email: 'grace@example.com', timezone: 'America/New_York' },
    });
    await enqueue(t.db.pool, id, 'scheduled');
    const [attendeeMail] = await smtp.waitFor(to('grace@example.com'));
    const [hostMail] = await smtp.waitFor(to(AMARA));

    assert.match(attendeeMail.parsed.subject!, /^\[Test\] Confirmed: Intro call with Amara Okafor$/);
    assert.match(attendeeMail.parsed.text!, /Tuesday, 1 December 2026, 05:00–05:30 \(America\/New_York\)/);
    assert.match(hostMail.parsed.subject!, /New booking: Intro call with Grace Hopper/);
    assert.equal(attendeeMail.parsed.from?.value[0].address, 'bookings@northwind.example');
    assert.equal(attendeeMail.parsed.headers.get('x-booking-id'), id);

    for (const mail of [attendeeMail, hostMail]) {
      const text = ics(mail);
      assert.equal(icsProp(text, 'METHOD'), 'REQUEST');
      assert.equal(icsProp(text, 'UID'), `${id}@booking-service`);
      assert.equal(icsProp(text, 'SEQUENCE'), '0');
      assert.equal(icsProp(text, 'STATUS'), 'CONFIRMED');
      assert.equal(icsProp(text, 'DTSTART'), '20261201T100000Z');
      assert.equal(icsProp(text, 'DTEND'), '20261201T103000Z');
      assert.match(icsProp(text, 'ORGANIZER')!, /mailto:amara@northwind\.example/i);
      const attendees = icsLines(text)
        .filter((l) => l.name === 'ATTENDEE')
        .map((l) => l.value.toLowerCase());
      assert.deepEqual(attendees, ['mailto:grace@example.com']);
      // also attached as a file, for clients that ignore the alternative
      assert.ok(mail.parsed.attachments.some((a) => a.filename === 'invite.ics'));
    }
    await waitUntilSettled(id);
    const rows = await emailsOfBooking(t.db.pool, id);
    assert.deepEqual(rows.map((r) => [r.recipient_role, r.to_address, r.status, r.attempts]).sort(), [
      ['attendee', 'grace@example.com', 'sent', 1],
      ['host', AMARA, 'sent', 1],
    ]);
    assert.ok(rows.every((r) => r.sent_at instanceof Date));
  });

  it('COLLECTIVE: every host in host_ids gets it, and the other hosts are ATTENDEEs of the invitation', async () => {
    const id = await insertBooking(t.db.pool, {
      eventTypeId: 'et_planning_session',
      start: '2026-12-02T14:00:00Z',
      minutes: 60,
      assignedToId: MEMBERS.amara,
      hostIds: [MEMBERS.amara, MEMBERS.jonas, MEMBERS.priya],
      mode: 'live',
    });
    await enqueue(t.db.pool, id, 'scheduled');
    const mails = await smtp.waitFor((m) => m.parsed.headers.get('x-booking-id') === id, 4);
    const recipients = mails.flatMap((m) => m.envelopeTo).sort();
    assert.deepEqual(recipients, [AMARA, `ada.${id}@example.com`, JONAS, 'priya@northwind.example'].sort());
    const text = ics(mails[0]);
    assert.match(icsProp(text, 'ORGANIZER')!, /amara@northwind\.example/i);
    const attendees = icsLines(text)
      .filter((l) => l.name === 'ATTENDEE')
      .map((l) => l.value.toLowerCase());
    assert.deepEqual(attendees, [`mailto:ada.${id}@example.com`, `mailto:${JONAS}`, 'mailto:priya@northwind.example']);
    // live mode: no test marker in the subject
    assert.ok(mails.every((m) => !m.parsed.subject!.startsWith('[Test]')));
  });
});

describe('confirmation_request', () => {
  it('asks the hosts to confirm with a tentative invitation, and tells the attendee it waits, without one yet', async () => {
    const id = await insertBooking(t.db.pool, {
      eventTypeId: 'et_planning_session',
      status: 'PENDING_CONFIRMATION',
      start: '2026-12-03T14:00:00Z',
      minutes: 60,
      assignedToId: MEMBERS.jonas,
      hostIds: [MEMBERS.jonas, MEMBERS.priya],
    });
    await enqueue(t.db.pool, id, 'confirmation_request');
    const mails = await smtp.waitFor((m) => m.parsed.headers.get('x-booking-id') === id, 3);
    const hostMails = mails.filter((m) => /Please confirm/.test(m.parsed.subject!));
    assert.deepEqual(hostMails.flatMap((m) => m.envelopeTo).sort(), [JONAS, 'priya@northwind.example']);
    const attendee = mails.find((m) => m.envelopeTo.includes(`ada.${id}@example.com`))!;
    assert.match(attendee.parsed.subject!, /Request received: Planning session/);
    assert.equal(calendarPart(attendee.parsed), undefined, "nothing on the attendee's calendar before the host confirms");
    for (const m of hostMails) {
      assert.equal(calendarPart(m.parsed)!.method, 'REQUEST');
      assert.equal(icsProp(ics(m), 'STATUS'), 'TENTATIVE');
      assert.equal(icsProp(ics(m), 'SEQUENCE'), '0');
      // the co-host has not answered yet; the attendee booked it
      const partstat = (email: string) =>
        ics(m)
          .replace(/\r\n[ \t]/g, '')
          .split('\r\n')
          .find((l) => l.startsWith('ATTENDEE') && l.toLowerCase().includes(email))
          ?.match(/PARTSTAT=([A-Z-]+)/)?.[1];
      assert.equal(partstat('priya@northwind.example'), 'NEEDS-ACTION');
      assert.equal(partstat(`ada.${id}@example.com`), 'ACCEPTED');
    }
    assert.match(hostMails[0].parsed.text!, new RegExp(`/bookings/${id}/confirm`));
  });

  it('the confirmation then invites everyone, confirmed, at the next SEQUENCE', async () => {
    const id = await insertBooking(t.db.pool, { status: 'SCHEDULED', start: '2026-12-03T16:00:00Z', assignedToId: MEMBERS.priya });
    await enqueue(t.db.pool, id, 'confirmation_request');
    await enqueue(t.db.pool, id, 'scheduled');
    const [mail] = await smtp.waitFor(toAnd(`ada.${id}@example.com`, /Confirmed/));
    assert.equal(icsProp(ics(mail), 'SEQUENCE'), '1');
    assert.equal(icsProp(ics(mail), 'STATUS'), 'CONFIRMED');
  });
});

describe('reschedule chain and cancellation', () => {
  it('keeps the UID of the first booking, raises SEQUENCE at every update, and cancels with METHOD:CANCEL', async () => {
    const attendee = { name: 'Alan Turing', email: 'alan@example.com', timezone: 'Europe/London' };
    const first = await insertBooking(t.db.pool, { start: '2026-12-07T09:00:00Z', assignedToId: MEMBERS.amara, attendee });
    await enqueue(t.db.pool, first, 'scheduled');
    const second = await insertBooking(t.db.pool, {
      status: 'RESCHEDULED',
      start: '2026-12-08T09:00:00Z',
      assignedToId: MEMBERS.amara,
      attendee,
      rescheduledFrom: first,
    });
    await enqueue(t.db.pool, second, 'rescheduled');
    const third = await insertBooking(t.db.pool, {
      status: 'RESCHEDULED',
      start: '2026-12-09T11:30:00Z',
      assignedToId: MEMBERS.amara,
      attendee,
      rescheduledFrom: second,
    });
    await enqueue(t.db.pool, third, 'rescheduled');
    await t.db.pool.query(`update bookings set status = 'CANCELLED', cancellation_reason = 'Conflict with a trip' where id = $1`, [third]);
    await enqueue(t.db.pool, third, 'cancelled');

    const attendeeMails = await smtp.waitFor(to('alan@example.com'), 4);
    const hostMails = await smtp.waitFor(
      (m) => m.envelopeTo.includes(AMARA) && [first, second, third].includes(m.parsed.headers.get('x-booking-id') as string),
      4,
    );
    for (const mails of [attendeeMails, hostMails]) {
      const parsed = mails.map((m) => ics(m)).sort((a, b) => Number(icsProp(a, 'SEQUENCE')) - Number(icsProp(b, 'SEQUENCE')));
      assert.deepEqual(
        parsed.map((p) => icsProp(p, 'UID')),
        Array(4).fill(`${first}@booking-service`),
      );
      assert.deepEqual(
        parsed.map((p) => icsProp(p, 'SEQUENCE')),
        ['0', '1', '2', '3'],
      );
      assert.deepEqual(
        parsed.map((p) => icsProp(p, 'METHOD')),
        ['REQUEST', 'REQUEST', 'REQUEST', 'CANCEL'],
      );
      assert.deepEqual(
        parsed.map((p) => icsProp(p, 'DTSTART')),
        ['20261207T090000Z', '20261208T090000Z', '20261209T113000Z', '20261209T113000Z'],
      );
      assert.equal(icsProp(parsed[3], 'STATUS'), 'CANCELLED');
    }
    const cancelMail = attendeeMails.find((m) => /Cancelled/.test(m.parsed.subject!))!;
    assert.match(cancelMail.parsed.text!, /Reason: Conflict with a trip/);
    assert.equal(calendarPart(cancelMail.parsed)!.method, 'CANCEL');
    const rescheduled = attendeeMails.find((m) => m.parsed.headers.get('x-booking-id') === third && /Rescheduled/.test(m.parsed.subject!))!;
    assert.match(rescheduled.parsed.text!, /New time: Wednesday, 9 December 2026, 11:30–12:00 \(Europe\/London\)/);
    assert.match(rescheduled.parsed.text!, /Previous time: Tuesday, 8 December 2026, 09:00–09:30/);
  });

  it('a host replaced by the reschedule gets a CANCEL for the meeting; the new host a REQUEST', async () => {
    const first = await insertBooking(t.db.pool, { start: '2026-12-10T09:00:00Z', assignedToId: MEMBERS.amara });
    await enqueue(t.db.pool, first, 'scheduled');
    const second = await insertBooking(t.db.pool, {
      status: 'RESCHEDULED',
      start: '2026-12-10T13:00:00Z',
      assignedToId: MEMBERS.jonas,
      rescheduledFrom: first,
      attendee: { name: 'Ada Lovelace', email: `ada.${first}@example.com` },
    });
    await enqueue(t.db.pool, second, 'rescheduled');
    const [removed] = await smtp.waitFor((m) => m.envelopeTo.includes(AMARA) && m.parsed.headers.get('x-booking-id') === second);
    assert.match(removed.parsed.subject!, /Cancelled for you/);
    assert.equal(icsProp(ics(removed), 'METHOD'), 'CANCEL');
    assert.equal(icsProp(ics(removed), 'SEQUENCE'), '1');
    assert.equal(icsProp(ics(removed), 'UID'), `${first}@booking-service`);
    const [added] = await smtp.waitFor((m) => m.envelopeTo.includes(JONAS) && m.parsed.headers.get('x-booking-id') === second);
    assert.equal(icsProp(ics(added), 'METHOD'), 'REQUEST');
    assert.equal(icsProp(ics(added), 'SEQUENCE'), '1');
    assert.match(added.parsed.subject!, /New booking/, 'the meeting is new to the host the reschedule brought in');
    assert.doesNotMatch(added.parsed.text!, /Previous time/);
  });

  it("a pending booking cancelled after its request withdraws the hosts' tentative event", async () => {
    const id = await insertBooking(t.db.pool, {
      eventTypeId: 'et_planning_session',
      status: 'PENDING_CONFIRMATION',
      start: '2026-12-11T14:00:00Z',
      minutes: 60,
      assignedToId: MEMBERS.amara,
      hostIds: [MEMBERS.amara],
    });
    await enqueue(t.db.pool, id, 'confirmation_request');
    await t.db.pool.query(`update bookings set status = 'CANCELLED' where id = $1`, [id]);
    await enqueue(t.db.pool, id, 'cancelled', undefined, false); // as cancelling a PENDING_CONFIRMATION booking does
    const mails = await smtp.waitFor((m) => m.parsed.headers.get('x-booking-id') === id && /Cancelled/.test(m.parsed.subject!), 2);
    const host = mails.find((m) => m.envelopeTo.includes('amara@northwind.example'))!;
    assert.equal(calendarPart(host.parsed)!.method, 'CANCEL');
    assert.equal(icsProp(ics(host), 'SEQUENCE'), '1');
    const attendee = mails.find((m) => m.envelopeTo.includes(`ada.${id}@example.com`))!;
    assert.equal(calendarPart(attendee.parsed), undefined, 'the attendee was never invited: nothing to withdraw');
  });

  it('a booking cancelled before any invitation went out (no host yet) gets a plain cancellation email', async () => {
    const id = await insertBooking(t.db.pool, { status: 'CANCELLED', start: '2026-12-11T16:00:00Z', assignedToId: null });
    await enqueue(t.db.pool, id, 'cancelled');
    const mails = await smtp.waitFor((m) => m.parsed.headers.get('x-booking-id') === id && /Cancelled/.test(m.parsed.subject!), 1);
    assert.ok(mails.every((m) => calendarPart(m.parsed) === undefined));
  });
});

describe('email_changed', () => {
  it('sends a fresh confirmation with the next SEQUENCE to the new address and a CANCEL to the old one', async () => {
    const id = await insertBooking(t.db.pool, {
      start: '2026-12-14T09:00:00Z',
      assignedToId: MEMBERS.amara,
      attendee: { name: 'Edsger Dijkstra', email: 'old.edsger@example.com', timezone: 'Europe/Amsterdam' },
    });
    await enqueue(t.db.pool, id, 'scheduled');
    await smtp.waitFor(to('old.edsger@example.com'));
    await t.db.pool.query(`update bookings set attendee = attendee || '{"email": "edsger@example.com"}' where id = $1`, [id]);
    await enqueue(t.db.pool, id, 'email_changed', 'old.edsger@example.com');

    const [fresh] = await smtp.waitFor(to('edsger@example.com'));
    assert.match(fresh.parsed.subject!, /Confirmed: Intro call/);
    assert.equal(icsProp(ics(fresh), 'METHOD'), 'REQUEST');
    assert.equal(icsProp(ics(fresh), 'SEQUENCE'), '1');
    assert.equal(icsProp(ics(fresh), 'UID'), `${id}@booking-service`);
    const [withdrawn] = await smtp.waitFor(toAnd('old.edsger@example.com', /Cancelled for you/));
    assert.equal(icsProp(ics(withdrawn), 'METHOD'), 'CANCEL');
    await waitUntilSettled(id);
    // the hosts are not written to again: only the attendee's address changed
    const rows = await emailsOfBooking(t.db.pool, id);
    assert.equal(rows.filter((r) => r.kind === 'email_changed' && r.recipient_role === 'host').length, 0);
  });
});

// graphile-worker's public jobs view hides payloads; its table shows them.
const JOBS_OF_EMAILS = `select count(*) from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
  where k.identifier = 'send-email' and exists (select 1 from json_array_elements_text(j.payload->'emailIds') e where e = any($1))`;

describe('transactional outbox', () => {
  it('the emails of several changes enqueued in one call (a routing batch) travel in one job', async () => {
    const ids = [
      await insertBooking(t.db.pool, { start: '2026-12-16T09:00:00Z', assignedToId: MEMBERS.amara }),
      await insertBooking(t.db.pool, { start: '2026-12-16T11:00:00Z', assignedToId: MEMBERS.amara }),
    ];
    const client = await t.db.pool.connect();
    try {
      await client.query('begin');
      await enqueueBookingEmails(
        client,
        ids.map((bookingId) => ({ bookingId, kind: 'scheduled' as const })),
      );
      const emailIds = (await client.query('select id from email_outbox where booking_id = any($1)', [ids])).rows.map(
        (r) => r.id as string,
      );
      assert.equal(emailIds.length, 4, 'attendee and host of each booking');
      const jobs = (
        await client.query(
          `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
          where k.identifier = 'send-email' and j.payload::jsonb -> 'emailIds' ?| $1::text[]`,
          [emailIds],
        )
      ).rows;
      assert.equal(jobs.length, 1);
      assert.deepEqual([...jobs[0].payload.emailIds].sort(), [...emailIds].sort());
    } finally {
      await client.query('rollback');
      client.release();
    }
  });

  it('an enqueue in a transaction that rolls back leaves no email and no job', async () => {
    const id = await insertBooking(t.db.pool, { start: '2026-12-15T09:00:00Z', assignedToId: MEMBERS.amara });
    const client = await t.db.pool.connect();
    const emailIds: string[] = [];
    try {
      await client.query('begin');
      await enqueueBookingEmail(client, { bookingId: id, kind: 'scheduled' });
      emailIds.push(...(await client.query('select id from email_outbox where booking_id = $1', [id])).rows.map((r) => r.id as string));
      const jobs = await client.query(JOBS_OF_EMAILS, [emailIds]);
      assert.equal(emailIds.length, 2, 'inside the transaction the emails exist');
      assert.equal(jobs.rows[0].count, 1, 'inside the transaction the job sending both exists');
    } finally {
      await client.query('rollback');
      client.release();
    }
    const rows = await emailsOfBooking(t.db.pool, id);
    const jobs = await t.db.pool.query(JOBS_OF_EMAILS, [emailIds]);
    assert.equal(rows.length, 0);
    assert.equal(jobs.rows[0].count, 0);
    const seq = await t.db.pool.query('select 1 from calendar_sequences where uid = $1', [`${id}@booking-service`]);
    assert.equal(seq.rowCount, 0, 'the SEQUENCE counter rolls back too');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(smtp.mails.filter((m) => m.parsed.headers.get('x-booking-id') === id).length, 0);
  });

  it('an SMTP failure is recorded on the row and retried until delivered', async () => {
    const id = await insertBooking(t.db.pool, { start: '2026-12-16T09:00:00Z', attendee: { name: 'No Host', email: 'retry@example.com' } });
    smtp.failNext(1);
    await enqueue(t.db.pool, id, 'scheduled');
    const deadline = Date.now() + 10_000;
    let row = (await emailsOfBooking(t.db.pool, id))[0];
    while (row.attempts === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      row = (await emailsOfBooking(t.db.pool, id))[0];
    }
    assert.equal(row.attempts, 1);
    assert.equal(row.status, 'pending');
    assert.match(row.last_error!, /451/);
    // graphile-worker's backoff retries after about e^1 seconds
    const [mail] = await smtp.waitFor(to('retry@example.com'), 1, 15_000);
    await waitUntilSettled(id);
    row = (await emailsOfBooking(t.db.pool, id))[0];
    assert.equal(row.status, 'sent');
    assert.equal(row.attempts, 2);
    assert.equal(row.last_error, null);
    // unassigned booking: no organizer, so no invitation
    assert.equal(calendarPart(mail.parsed), undefined);
  });
});
