import type { JobHelpers } from 'graphile-worker';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { Attempt } from '../../db/queries/email-outbox.ts';
import { findEmails, recordAttempts } from '../../db/queries/email-outbox.ts';
import { toMailMessage } from '../../domain/email/message.ts';
import { coalesce } from '../../lib/coalesce.ts';
import { emails } from '../../metrics.ts';
import { limit } from '../../lib/limit.ts';
import type { WorkerDeps } from '../deps.ts';
import type { EmailRow } from '../../db/schema.ts';
import type { Payload, TypedTask } from '../registry.ts';

// Short enough that a silent SMTP server cannot hold a worker slot for minutes (nodemailer's
// defaults go up to 10 minutes); the job is retried later instead.
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };
/**
 * Messages of one job sent at the same time (each over its own SMTP connection). A job carries
 * the first emails of a routing batch (two per booking, up to the worker's concurrency of
 * bookings): one after another, the last would wait for all the others.
 */
const SENDS_AT_ONCE = 8;

function describe(err: unknown): string {
  const e = err as { code?: string; responseCode?: number; message?: string };
  const text = [e.code, e.responseCode, e.message ?? String(err)].filter((p) => p !== undefined).join(' ');
  return text.slice(0, 1000);
}

/** The outbox rows of one booking change (`emailId`: the one row of a job queued by an earlier version). */
function emailIdsOf(payload: Payload<'send-email'>): string[] {
  return 'emailIds' in payload ? payload.emailIds : [payload.emailId];
}

/**
 * Sends the outbox rows of one job (enqueued by enqueueBookingEmails: one change, or a routing
 * batch's first emails), SENDS_AT_ONCE at a time.
 * Without SMTP_URL each message is written to the log and its row kept as 'logged'. An SMTP
 * failure is recorded on its row and, once every row was tried, thrown, so graphile-worker
 * retries with its exponential backoff; the last failed attempt marks the row 'failed'. A row
 * already sent or logged is not sent again (the retry of a partly sent change, a job rerun
 * after a crash). Reading the rows and recording the outcomes are shared with the send-email
 * jobs running at the same time (coalesce): under load one statement serves many changes,
 * while each job still sends its own messages.
 */
export function sendEmail(deps: WorkerDeps): TypedTask<'send-email'> {
  let transport: Transporter | undefined;
  const load = coalesce(async (ids: string[]) => {
    const byId = new Map((await findEmails(deps.db, ids)).map((e) => [e.id, e]));
    return new Map(ids.map((id) => [id, byId.get(id) ?? null]));
  });
  const record = coalesce(async (attempts: Attempt[]) => {
    await recordAttempts(deps.db, attempts);
    return new Map(attempts.map((a) => [a, true]));
  });
  const recordAttempt = (id: string, status: Attempt['status'], error: string | null) => record({ id, status, at: deps.now(), error });

  /** The failure to report, or undefined when sent. */
  async function sendOne(email: EmailRow, helpers: JobHelpers): Promise<string | undefined> {
    transport ??= nodemailer.createTransport({ url: deps.config.smtpUrl!, ...TIMEOUTS });
    try {
      await transport.sendMail(toMailMessage(email, deps.config.mailFrom));
    } catch (err) {
      const final = helpers.job.attempts >= helpers.job.max_attempts;
      const reason = describe(err);
      await recordAttempt(email.id, final ? 'failed' : 'pending', reason);
      emails.inc({ outcome: 'failed' });
      deps.log.warn(
        {
          emailId: email.id,
          bookingId: email.booking_id,
          kind: email.kind,
          to: email.to_address,
          attempt: helpers.job.attempts,
          final,
          reason,
        },
        'send-email: SMTP delivery failed',
      );
      return `${email.id}: ${reason}`;
    }
    await recordAttempt(email.id, 'sent', null);
    emails.inc({ outcome: 'sent' });
    deps.log.info({ emailId: email.id, bookingId: email.booking_id, kind: email.kind, to: email.to_address }, 'email sent');
    return undefined;
  }

  return async (payload, helpers) => {
    const emailIds = emailIdsOf(payload);
    const found: EmailRow[] = [];
    const unique = [...new Set(emailIds)];
    for (const [i, email] of (await Promise.all(unique.map(load))).entries()) {
      if (email) found.push(email);
      else deps.log.warn({ emailId: unique[i] }, 'send-email: no such email, dropped');
    }
    const due = found.filter((e) => e.status !== 'sent' && e.status !== 'logged');
    if (due.length === 0) return;

    if (!deps.config.smtpUrl) {
      for (const email of due) {
        deps.log.info(
          {
            emailId: email.id,
            bookingId: email.booking_id,
            to: email.to_address,
            subject: email.subject,
            text: email.text_body,
            ics: email.ics,
          },
          'email logged (SMTP_URL is not set)',
        );
      }
      await Promise.all(due.map((e) => recordAttempt(e.id, 'logged', null)));
      emails.inc({ outcome: 'logged' }, due.length);
      return;
    }

    const sending = limit(SENDS_AT_ONCE);
    const outcomes = await Promise.all(due.map((email) => sending(() => sendOne(email, helpers))));
    const failures = outcomes.filter((f) => f !== undefined);
    if (failures.length > 0) throw new Error(`send-email ${failures.join('; ')}`);
  };
}
