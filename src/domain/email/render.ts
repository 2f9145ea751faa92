import { DateTime, IANAZone } from 'luxon';
import type { EmailContext, Meeting, PlannedEmail } from './plan.ts';

export interface RenderedText {
  subject: string;
  text: string;
}

// luxon checks a zone by building an Intl.DateTimeFormat, which costs more than the rest of a
// message; zone names repeat, so the answer is kept.
const zoneValidity = new Map<string, boolean>();
function validZone(zone: string): boolean {
  let valid = zoneValidity.get(zone);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(zone);
    if (zoneValidity.size < 10_000) zoneValidity.set(zone, valid);
  }
  return valid;
}

/** "Tuesday, 24 November 2026, 10:00–10:30 (Europe/London)"; unknown zones fall back to UTC. */
export function formatMeetingTime(meeting: Pick<Meeting, 'start' | 'end'>, zone: string): string {
  const tz = validZone(zone) ? zone : 'UTC';
  const start = DateTime.fromJSDate(meeting.start, { zone: tz }).setLocale('en-GB');
  const end = DateTime.fromJSDate(meeting.end, { zone: tz }).setLocale('en-GB');
  const endFormat = start.hasSame(end, 'day') ? 'HH:mm' : 'cccc, d LLLL yyyy, HH:mm';
  return `${start.toFormat('cccc, d LLLL yyyy, HH:mm')}–${end.toFormat(endFormat)} (${tz})`;
}

function hostNames(meeting: Meeting): string {
  return meeting.hosts.length > 0 ? meeting.hosts.map((h) => h.name).join(', ') : 'our team';
}

/** The description inside the calendar invitation: the same for every recipient. */
export function icsDescription(ctx: EmailContext, meeting: Meeting): string {
  const lines = [
    `${ctx.eventTypeName} between ${ctx.attendee.name} and ${hostNames(meeting)}.`,
    ctx.eventTypeDescription ?? '',
    `Booking: ${ctx.bookingId}`,
  ];
  return lines.filter(Boolean).join('\n');
}

/** Subject and plain-text body of one planned message. */
export function renderEmail(ctx: EmailContext, email: PlannedEmail): RenderedText {
  const when = formatMeetingTime(email.meeting, email.to.timezone);
  const type = ctx.eventTypeName;
  const hosts = hostNames(email.meeting);
  const toHost = email.role === 'host';
  const other = toHost ? ctx.attendee.name : hosts;
  const footer = [`Booking: ${ctx.bookingId}`];
  let subject: string;
  let body: string[];
  switch (email.template) {
    case 'scheduled':
    case 'email_changed':
      subject = toHost ? `New booking: ${type} with ${ctx.attendee.name}` : `Confirmed: ${type} with ${hosts}`;
      body = [`Your ${type} with ${other} is confirmed.`, '', `When: ${when}`];
      if (toHost) body.push(`Attendee: ${ctx.attendee.name} <${ctx.attendee.email}>`);
      if (email.template === 'email_changed') body.push('', 'You receive this confirmation because the booking now uses this email address.');
      break;
    case 'confirmation_request':
      subject = `Please confirm: ${type} with ${ctx.attendee.name}`;
      body = [
        `${ctx.attendee.name} <${ctx.attendee.email}> requested a ${type}.`,
        '',
        `When: ${when}`,
        '',
        `The booking waits for your confirmation (POST /bookings/${ctx.bookingId}/confirm).`,
      ];
      break;
    case 'request_received':
      subject = `Request received: ${type}`;
      body = [
        `We received your request for a ${type}.`,
        '',
        `Requested time: ${when}`,
        '',
        'The host still has to confirm it; you will receive a calendar invitation once they do.',
      ];
      break;
    case 'cancelled':
      subject = `Cancelled: ${type} with ${other}`;
      body = [`Your ${type} with ${other} has been cancelled.`, '', `Was: ${when}`];
      if (ctx.cancellationReason) body.push(`Reason: ${ctx.cancellationReason}`);
      break;
    case 'rescheduled': {
      subject = `Rescheduled: ${type} with ${other}`;
      body = [`Your ${type} with ${other} has a new time.`, '', `New time: ${when}`];
      if (ctx.previous) body.push(`Previous time: ${formatMeetingTime(ctx.previous, email.to.timezone)}`);
      break;
    }
    case 'removed':
      subject = `Cancelled for you: ${type}`;
      body = toHost
        ? [`The ${type} with ${ctx.attendee.name} moved to another host; it no longer takes your time.`, '', `Was: ${when}`]
        : [`The booking of your ${type} now uses another email address; this address no longer receives its updates.`, '', `When: ${when}`];
      break;
  }
  const prefix = ctx.mode === 'test' ? '[Test] ' : '';
  return { subject: `${prefix}${subject}`, text: [...body, '', ...footer, ''].join('\n') };
}
