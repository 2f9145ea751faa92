import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';

export type IcsMethod = 'REQUEST' | 'CANCEL';

export interface IcsPerson {
  name: string;
  email: string;
  /** false: asked, not yet answered (PARTSTAT=NEEDS-ACTION); default accepted. */
  accepted?: boolean;
}

export interface IcsInput {
  method: IcsMethod;
  /** Stable for the whole reschedule chain, so calendars update one event instead of adding one. */
  uid: string;
  /** Increases with every update of the meeting; calendars ignore anything older than they hold. */
  sequence: number;
  start: Date;
  end: Date;
  /** When the change happened (DTSTAMP). */
  stamp: Date;
  summary: string;
  description: string;
  organizer: IcsPerson;
  /** The booking's attendee first, then any other host of a collective meeting. */
  attendees: IcsPerson[];
  /** A REQUEST for a meeting still awaiting the host's confirmation. */
  tentative?: boolean;
}

/**
 * One VEVENT in UTC (no VTIMEZONE needed: each client shows it in its own zone). The attendee
 * booked the slot themselves, so they are ACCEPTED and no RSVP is asked.
 */
export function renderIcs(input: IcsInput): string {
  const cancel = input.method === 'CANCEL';
  const calendar = ical({
    prodId: { company: 'booking-service', product: 'bookings', language: 'EN' },
    method: cancel ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  calendar.createEvent({
    id: input.uid,
    sequence: input.sequence,
    stamp: input.stamp,
    start: input.start,
    end: input.end,
    summary: input.summary,
    description: input.description,
    status: cancel ? ICalEventStatus.CANCELLED : input.tentative ? ICalEventStatus.TENTATIVE : ICalEventStatus.CONFIRMED,
    organizer: { name: input.organizer.name, email: input.organizer.email },
    attendees: input.attendees.map((a) => ({
      name: a.name,
      email: a.email,
      role: ICalAttendeeRole.REQ,
      status: a.accepted === false ? ICalAttendeeStatus.NEEDSACTION : ICalAttendeeStatus.ACCEPTED,
      rsvp: false,
    })),
  });
  // RFC 5545 §3.1: every content line ends with CRLF, the last one too (ical-generator omits it)
  const text = calendar.toString();
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}
