import type { EmailContext, Meeting, PlannedEmail } from './plan.ts';

export interface RenderedText {
  subject: string;
  text: string;
}

// Building an Intl.DateTimeFormat costs more than the rest of a message, and zones repeat: one
// formatter per zone is kept (null for a name Intl does not know).
const formatters = new Map<string, Intl.DateTimeFormat | null>();
function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        weekday: 'long',
        day: 'numeric',
        month: 'long',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
    } catch {
      f = null; // RangeError: not an IANA zone
    }
    if (formatters.size < 10_000) formatters.set(zone, f);
  }
  return f;
}

interface WallTime {
  day: string;
  time: string;
}

/** "Tuesday, 24 November 2026" and "10:00" in the formatter's zone. */
function wallTime(f: Intl.DateTimeFormat, at: Date): WallTime {
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(at)) p[part.type] = part.value;
  return { day: `${p.weekday}, ${p.day} ${p.month} ${p.year}`, time: `${p.hour}:${p.minute}` };
}

/** "Tuesday, 24 November 2026, 10:00–10:30 (Europe/London)"; unknown zones fall back to UTC. */
export function formatMeetingTime(meeting: Pick<Meeting, 'start' | 'end'>, zone: string): string {
  let f = formatterFor(zone);
  const tz = f ? zone : 'UTC';
  f ??= formatterFor('UTC') as Intl.DateTimeFormat;
  const start = wallTime(f, meeting.start);
  const end = wallTime(f, meeting.end);
  const endText = start.day === end.day ? end.time : `${end.day}, ${end.time}`;
  return `${start.day}, ${start.time}–${endText} (${tz})`;
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
      if (email.template === 'email_changed')
        body.push('', 'You receive this confirmation because the booking now uses this email address.');
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
