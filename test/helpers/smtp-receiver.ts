import type { AddressInfo } from 'node:net';
import type { ParsedMail } from 'mailparser';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** RCPT TO addresses of the SMTP envelope. */
  envelopeTo: string[];
  parsed: ParsedMail;
  raw: string;
}

export interface SmtpReceiver {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  mails: ReceivedMail[];
  /** Answer the next n messages with a temporary failure (451), to exercise retries. */
  failNext(n: number): void;
  /** Resolves with the first `count` mails that match, waiting up to timeoutMs for them. */
  waitFor(predicate: (m: ReceivedMail) => boolean, count?: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** A real SMTP server on a free local port that keeps every message it receives. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  let failures = 0;
  const server = new SMTPServer({
    authOptional: true,
    // plain SMTP on localhost: nodemailer would otherwise upgrade to TLS with a self-signed cert
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures--;
          const err = Object.assign(new Error('try again later'), { responseCode: 451 });
          callback(err);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            mails.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), parsed, raw });
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    failNext(n) {
      failures = n;
    },
    async waitFor(predicate, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.filter(predicate);
        if (found.length >= count) return found.slice(0, count);
        if (Date.now() > deadline) {
          throw new Error(
            `waited ${timeoutMs} ms for ${count} mail(s), got ${found.length}; all: ${mails.map((m) => `${m.envelopeTo} "${m.parsed.subject}"`).join('; ')}`,
          );
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text/calendar part of a parsed mail (the alternative nodemailer adds for icalEvent). */
export function calendarPart(mail: ParsedMail): { method: string | undefined; text: string } | undefined {
  const alt = mail.attachments.find((a) => a.contentType === 'text/calendar');
  if (!alt) return undefined;
  const params = (alt.headers.get('content-type') as { params?: Record<string, string> } | undefined)?.params ?? {};
  return { method: params.method, text: alt.content.toString('utf8') };
}

/** Unfolds an iCalendar text and returns its property lines as [name (without params), params, value]. */
export function icsLines(text: string): { name: string; params: string; value: string }[] {
  return text
    .replace(/\r?\n[ \t]/g, '')
    .split(/\r?\n/)
    .filter(Boolean)
    .map((line) => {
      const colon = line.indexOf(':');
      const head = line.slice(0, colon);
      const semi = head.indexOf(';');
      return { name: semi >= 0 ? head.slice(0, semi) : head, params: semi >= 0 ? head.slice(semi + 1) : '', value: line.slice(colon + 1) };
    });
}

/** The value of the first property `name` of the VEVENT (or the calendar, for METHOD). */
export function icsProp(text: string, name: string): string | undefined {
  return icsLines(text).find((l) => l.name === name)?.value;
}
