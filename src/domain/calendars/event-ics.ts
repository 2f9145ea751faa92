/**
 * The calendar object the service stores in a host's calendar for a booking (RFC 5545, as a
 * CalDAV resource: no METHOD). Written by hand rather than with ical-generator for two
 * parameters it cannot set: SCHEDULE-AGENT=CLIENT on ORGANIZER and ATTENDEE (RFC 6638 §7.1),
 * which tells a scheduling server (Nextcloud, iCloud) not to send invitations of its own,
 * since the service mails the attendee itself.
 */

export interface CalendarEventInput {
  uid: string;
  /** The booking the event shows now (X-BOOKING-ID). */
  bookingId: string;
  sequence: number;
  stamp: Date;
  start: Date;
  end: Date;
  status: 'CONFIRMED' | 'TENTATIVE';
  summary: string;
  description: string;
  /** The host whose calendar it is. */
  organizer: { name: string; email: string };
  /** The booking's attendee first, then the other hosts of a collective meeting. */
  attendees: { name: string; email: string }[];
}

/** TEXT value escaping (RFC 5545 §3.3.11). */
function text(v: string): string {
  return v
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** A parameter value, quoted when it holds ":", ";" or "," (RFC 5545 §3.2); quotes themselves cannot appear. */
function param(v: string): string {
  const clean = v.replace(/["\r\n]/g, "'");
  return /[:;,]/.test(clean) ? `"${clean}"` : clean;
}

function utc(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** Folds a content line at 75 octets without splitting a UTF-8 sequence (RFC 5545 §3.1). */
export function fold(line: string): string {
  const out: string[] = [];
  let current = '';
  let bytes = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > (out.length === 0 ? 75 : 74)) {
      out.push(current);
      current = '';
      bytes = 0;
    }
    current += ch;
    bytes += size;
  }
  out.push(current);
  return out.join('\r\n ');
}

const mailto = (email: string) => `mailto:${email.replace(/[\r\n]/g, '')}`;

export function renderCalendarEvent(e: CalendarEventInput): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//booking-service//bookings//EN',
    'BEGIN:VEVENT',
    `UID:${e.uid}`,
    `DTSTAMP:${utc(e.stamp)}`,
    `DTSTART:${utc(e.start)}`,
    `DTEND:${utc(e.end)}`,
    `SEQUENCE:${e.sequence}`,
    `STATUS:${e.status}`,
    `SUMMARY:${text(e.summary)}`,
    `DESCRIPTION:${text(e.description)}`,
    `ORGANIZER;CN=${param(e.organizer.name)};SCHEDULE-AGENT=CLIENT:${mailto(e.organizer.email)}`,
    ...e.attendees.map(
      (a) => `ATTENDEE;CN=${param(a.name)};ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;SCHEDULE-AGENT=CLIENT:${mailto(a.email)}`,
    ),
    'TRANSP:OPAQUE',
    `X-BOOKING-ID:${text(e.bookingId)}`,
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  return lines.map(fold).join('\r\n') + '\r\n';
}
