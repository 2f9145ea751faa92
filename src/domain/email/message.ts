import type { SendMailOptions } from 'nodemailer';
import type { EmailRow } from '../../db/schema.ts';

/** The domain of the From address ("Name <a@b.example>" or "a@b.example"), for Message-IDs. */
export function mailDomain(from: string): string {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  const at = address.lastIndexOf('@');
  return at >= 0 ? address.slice(at + 1).trim() : 'booking-service.local';
}

/**
 * The nodemailer message of one outbox row. The Message-ID derives from the row id, so a retry
 * after an uncertain send carries the same id and mail systems can drop the duplicate. The ICS
 * goes both as a text/calendar alternative with its METHOD (what clients show as an invitation)
 * and as an invite.ics attachment (nodemailer's icalEvent does both).
 */
export function toMailMessage(email: EmailRow, from: string): SendMailOptions {
  return {
    from,
    to: email.to_name ? { name: email.to_name, address: email.to_address } : email.to_address,
    subject: email.subject,
    text: email.text_body,
    messageId: `<${email.id}@${mailDomain(from)}>`,
    headers: {
      'X-Booking-Id': email.booking_id,
      'X-Booking-Mode': email.mode,
    },
    ...(email.ics ? { icalEvent: { method: email.ics_method ?? 'REQUEST', filename: 'invite.ics', content: email.ics } } : {}),
  };
}
