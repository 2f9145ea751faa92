import type { Task } from 'graphile-worker';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { findEmail, recordAttempt } from '../../db/queries/email-outbox.ts';
import { toMailMessage } from '../../domain/email/message.ts';
import type { WorkerDeps } from '../deps.ts';

export interface SendEmailPayload {
  emailId: string;
}

// Short enough that a silent SMTP server cannot hold a worker slot for minutes (nodemailer's
// defaults go up to 10 minutes); the job is retried later instead.
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

function describe(err: unknown): string {
  const e = err as { code?: string; responseCode?: number; message?: string };
  const text = [e.code, e.responseCode, e.message ?? String(err)].filter((p) => p !== undefined).join(' ');
  return text.slice(0, 1000);
}

/**
 * Sends one outbox row (enqueued by enqueueBookingEmail). Without SMTP_URL the message is written
 * to the log and the row kept as 'logged'. An SMTP failure is recorded on the row and thrown, so
 * graphile-worker retries with its exponential backoff; the last failed attempt marks it
 * 'failed'. A row already sent or logged is not sent again (a job rerun after a crash).
 */
export function sendEmail(deps: WorkerDeps): Task {
  let transport: Transporter | undefined;
  return async (payload, helpers) => {
    const emailId = (payload as Partial<SendEmailPayload> | null)?.emailId;
    if (typeof emailId !== 'string') {
      deps.log.error({ payload }, 'send-email: payload without emailId, dropped');
      return;
    }
    const email = await findEmail(deps.db, emailId);
    if (!email) {
      deps.log.warn({ emailId }, 'send-email: no such email, dropped');
      return;
    }
    if (email.status === 'sent' || email.status === 'logged') return;

    if (!deps.config.smtpUrl) {
      deps.log.info(
        { emailId, bookingId: email.booking_id, to: email.to_address, subject: email.subject, text: email.text_body, ics: email.ics },
        'email logged (SMTP_URL is not set)',
      );
      await recordAttempt(deps.db, emailId, 'logged', deps.now(), null);
      return;
    }

    transport ??= nodemailer.createTransport({ url: deps.config.smtpUrl, ...TIMEOUTS });
    try {
      await transport.sendMail(toMailMessage(email, deps.config.mailFrom));
    } catch (err) {
      const final = helpers.job.attempts >= helpers.job.max_attempts;
      const reason = describe(err);
      await recordAttempt(deps.db, emailId, final ? 'failed' : 'pending', deps.now(), reason);
      deps.log.warn({ emailId, attempt: helpers.job.attempts, final, reason }, 'send-email: SMTP delivery failed');
      throw new Error(`send-email ${emailId}: ${reason}`, { cause: err });
    }
    await recordAttempt(deps.db, emailId, 'sent', deps.now(), null);
  };
}
