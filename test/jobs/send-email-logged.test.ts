import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { transaction } from '../../src/db/pool.ts';
import { emailsOfBooking, findEmail, insertEmails } from '../../src/db/queries/email-outbox.ts';
import { MemoryFreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import type { Payload } from '../../src/jobs/registry.ts';
import { sendEmail } from '../../src/jobs/tasks/send-email.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { MEMBERS } from '../helpers/fixtures.ts';
import type { SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { startSmtpReceiver } from '../helpers/smtp-receiver.ts';
import { enqueue, insertBooking } from '../domain/email/booking-rows.ts';

let t: TestApp;
before(async () => {
  // a worker, and no SMTP_URL
  t = await startApp({ worker: true });
});
after(() => t.close());

describe('without SMTP_URL', () => {
  it('the worker logs each message and keeps it in the outbox as logged', async () => {
    const id = await insertBooking(t.db.pool, { start: '2026-12-01T10:00:00Z', assignedToId: MEMBERS.amara });
    await enqueue(t.db.pool, id, 'scheduled');
    const deadline = Date.now() + 10_000;
    let rows = await emailsOfBooking(t.db.pool, id);
    while (rows.some((r) => r.status === 'pending') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      rows = await emailsOfBooking(t.db.pool, id);
    }
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.equal(row.status, 'logged');
      assert.equal(row.attempts, 1);
      assert.ok(row.sent_at);
      assert.match(row.ics!, /METHOD:REQUEST/);
    }
  });
});

/** Runs the task directly, with a logger whose lines the test reads. */
function directTask(env: Record<string, string>) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const config = loadConfig({ ...env, DATABASE_URL: t.db.url });
  const now = () => new Date('2026-11-30T12:00:00Z');
  const task = sendEmail({
    db: t.db.pool,
    config,
    now,
    log: pino({ level: 'debug' }, stream),
    freebusyCache: new MemoryFreeBusyCache(() => 0),
  });
  const runPayload = async (payload: Payload<'send-email'>, attempts = 1, maxAttempts = 10): Promise<void> => {
    await task(payload, { job: { attempts, max_attempts: maxAttempts } } as unknown as JobHelpers);
  };
  const run = (emailIds: string[], attempts?: number, maxAttempts?: number) => runPayload({ emailIds }, attempts, maxAttempts);
  return { run, runPayload, lines };
}

async function outboxRow(): Promise<string> {
  const bookingId = await insertBooking(t.db.pool, { start: '2026-12-02T10:00:00Z' });
  const id = `eml_${randomBytes(8).toString('hex')}`;
  await transaction(t.db.pool, (tx) =>
    insertEmails(tx, [
      {
        id,
        organization_id: 'org_northwind',
        mode: 'test',
        booking_id: bookingId,
        kind: 'scheduled',
        recipient_role: 'attendee',
        to_address: 'direct@example.com',
        to_name: 'Direct Test',
        subject: 'Confirmed: direct',
        text_body: 'Hello there',
        ics: 'BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nEND:VCALENDAR\r\n',
        ics_method: 'REQUEST',
        ics_uid: 'u@booking-service',
        ics_sequence: 0,
      },
    ]),
  );
  return id;
}

describe('the send-email task', () => {
  let smtp: SmtpReceiver;
  before(async () => {
    smtp = await startSmtpReceiver();
  });
  after(() => smtp.close());

  it('writes the whole message to the log once, and a rerun of the job does not log it again', async () => {
    const id = await outboxRow();
    const { run, lines } = directTask({});
    await run([id]);
    await run([id]);
    assert.equal(lines.length, 1);
    const entry = JSON.parse(lines[0]);
    assert.equal(entry.to, 'direct@example.com');
    assert.equal(entry.subject, 'Confirmed: direct');
    assert.equal(entry.text, 'Hello there');
    assert.match(entry.ics, /METHOD:REQUEST/);
    const row = await findEmail(t.db.pool, id);
    assert.equal(row!.status, 'logged');
    assert.equal(row!.attempts, 1);
    assert.deepEqual(row!.sent_at, new Date('2026-11-30T12:00:00Z'));
  });

  it('keeps the row pending on a failed attempt, marks it failed on the last, and never logs the SMTP password', async () => {
    const id = await outboxRow();
    // a closed port: connection refused
    const { run, lines } = directTask({ SMTP_URL: 'smtp://mailer:s3cret-pass@127.0.0.1:1' });
    await assert.rejects(run([id], 1, 3), /ECONNREFUSED/);
    let row = await findEmail(t.db.pool, id);
    assert.equal(row!.status, 'pending');
    assert.equal(row!.attempts, 1);
    await assert.rejects(run([id], 3, 3));
    row = await findEmail(t.db.pool, id);
    assert.equal(row!.status, 'failed');
    assert.equal(row!.attempts, 2);
    assert.match(row!.last_error!, /ECONNREFUSED/);
    assert.equal(row!.sent_at, null);
    assert.ok(lines.length > 0);
    assert.ok(!lines.join('\n').includes('s3cret-pass'));
    assert.ok(!row!.last_error!.includes('s3cret-pass'));
  });

  it('sends with a stable Message-ID derived from the row, and a failed row is sent by a later attempt', async () => {
    const id = await outboxRow();
    const { run, lines } = directTask({ SMTP_URL: smtp.url, MAIL_FROM: 'Bookings <bookings@northwind.example>' });
    smtp.failNext(1);
    await assert.rejects(run([id], 1, 2), /451/);
    // the failure's line says which email of which booking, as the sent line does (docs/observability.md)
    const failed = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'send-email: SMTP delivery failed');
    assert.ok(failed, lines.join('\n'));
    assert.deepEqual(
      Object.keys(failed)
        .filter((k) => ['emailId', 'bookingId', 'kind', 'to', 'reason', 'attempt', 'final'].includes(k))
        .sort(),
      ['attempt', 'bookingId', 'emailId', 'final', 'kind', 'reason', 'to'],
    );
    assert.equal(failed.emailId, id);
    await run([id], 2, 2);
    const [mail] = await smtp.waitFor((m) => m.envelopeTo.includes('direct@example.com'));
    assert.equal(mail.parsed.messageId, `<${id}@northwind.example>`);
    const row = await findEmail(t.db.pool, id);
    assert.equal(row!.status, 'sent');
    assert.equal(row!.attempts, 2);
  });

  it('sends the other messages of a change when one fails, and its retry sends only the failed one', async () => {
    const first = await outboxRow();
    const second = await outboxRow();
    const { run } = directTask({ SMTP_URL: smtp.url });
    const of = (id: string) => (m: { parsed: { messageId?: string } }) => m.parsed.messageId?.includes(id) === true;
    smtp.failNext(1);
    await assert.rejects(run([first, second], 1, 3), new RegExp(`${first}: .*451`));
    assert.equal((await findEmail(t.db.pool, first))!.status, 'pending');
    assert.equal((await findEmail(t.db.pool, second))!.status, 'sent');
    await run([first, second], 2, 3);
    assert.equal((await findEmail(t.db.pool, first))!.status, 'sent');
    assert.equal((await findEmail(t.db.pool, second))!.attempts, 1, 'the sent message is not sent again');
    await smtp.waitFor(of(first));
    assert.equal(smtp.mails.filter(of(second)).length, 1);
  });

  it('still runs a job queued with the one-message payload of earlier versions', async () => {
    const id = await outboxRow();
    const { runPayload, lines } = directTask({});
    await runPayload({ emailId: id });
    assert.equal(lines.length, 1);
    assert.equal((await findEmail(t.db.pool, id))!.status, 'logged');
  });

  // a malformed payload never reaches the task: test/jobs/registry.test.ts
  it('drops a job whose email does not exist, without retrying', async () => {
    const { run, lines } = directTask({});
    await run(['eml_missing']);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /no such email/);
  });
});
