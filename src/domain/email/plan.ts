import type { IcsMethod } from './ics.ts';

export type BookingEmailKind = 'scheduled' | 'confirmation_request' | 'cancelled' | 'rescheduled' | 'email_changed';

/** What a message says; a kind maps to one or more templates depending on the recipient. */
export type Template =
  | 'scheduled'
  | 'confirmation_request'
  | 'request_received'
  | 'cancelled'
  | 'rescheduled'
  | 'email_changed'
  /** a recipient who no longer takes part: a host replaced on reschedule, a replaced attendee address */
  | 'removed';

export interface Person {
  name: string;
  email: string;
  /** IANA zone the message shows times in. */
  timezone: string;
}

export interface Meeting {
  start: Date;
  end: Date;
  /** Hosts, the assigned member first (the ICS organizer). */
  hosts: Person[];
}

export interface EmailContext {
  kind: BookingEmailKind;
  mode: 'test' | 'live';
  bookingId: string;
  status: string;
  eventTypeName: string;
  eventTypeDescription: string | null;
  attendee: Person;
  meeting: Meeting;
  cancellationReason: string | null;
  /** rescheduled: the booking this one replaced. */
  previous?: Meeting;
  /** email_changed: the attendee's address before the change. */
  previousEmail?: string;
  /** cancelled: false when the attendee was never invited (the booking awaited confirmation). */
  attendeeInvited?: boolean;
}

export interface PlannedEmail {
  role: 'attendee' | 'host';
  to: Person;
  template: Template;
  ics: IcsMethod | null;
  /** The meeting the message is about (the previous one for hosts removed by a reschedule). */
  meeting: Meeting;
}

const sameAddress = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Who gets what for one booking change. Pure: the caller loads the context and resolves the
 * calendar SEQUENCE. A confirmation request invites the hosts tentatively (STATUS:TENTATIVE, so
 * the slot shows on their calendars while they decide) and the attendee not yet: the confirm then
 * sends 'scheduled', a confirmed REQUEST to everyone, and a cancel withdraws the tentative event.
 */
export function planEmails(ctx: EmailContext): PlannedEmail[] {
  const { attendee, meeting } = ctx;
  const toAll = (template: Template, ics: IcsMethod | null): PlannedEmail[] => [
    { role: 'attendee', to: attendee, template, ics, meeting },
    ...meeting.hosts.map((h) => ({ role: 'host' as const, to: h, template, ics, meeting })),
  ];
  switch (ctx.kind) {
    case 'scheduled':
      return toAll('scheduled', 'REQUEST');
    case 'confirmation_request':
      return [
        ...meeting.hosts.map((h) => ({
          role: 'host' as const,
          to: h,
          template: 'confirmation_request' as const,
          ics: 'REQUEST' as const,
          meeting,
        })),
        { role: 'attendee', to: attendee, template: 'request_received', ics: null, meeting },
      ];
    case 'cancelled':
      // the hosts' tentative event goes; an attendee never invited has none to withdraw
      return toAll('cancelled', 'CANCEL').map((e) => (e.role === 'attendee' && ctx.attendeeInvited === false ? { ...e, ics: null } : e));
    case 'rescheduled': {
      const previous = ctx.previous;
      const replaced = previous ? previous.hosts.filter((old) => !meeting.hosts.some((h) => sameAddress(h.email, old.email))) : [];
      // a host the reschedule brought in never had the meeting: for them it is a new booking
      const isNew = (h: Person) => previous !== undefined && !previous.hosts.some((old) => sameAddress(old.email, h.email));
      return [
        ...toAll('rescheduled', 'REQUEST').map((e) => (e.role === 'host' && isNew(e.to) ? { ...e, template: 'scheduled' as const } : e)),
        ...replaced.map((h) => ({
          role: 'host' as const,
          to: h,
          template: 'removed' as const,
          ics: 'CANCEL' as const,
          meeting: previous!,
        })),
      ];
    }
    case 'email_changed': {
      // A DRAFT's confirmation is still to come from routing, to whatever address it holds then;
      // a closed booking has nothing left to confirm.
      if (ctx.status === 'PENDING_CONFIRMATION')
        return [{ role: 'attendee', to: attendee, template: 'request_received', ics: null, meeting }];
      if (!['SCHEDULED', 'RESCHEDULED'].includes(ctx.status)) return [];
      const fresh: PlannedEmail = { role: 'attendee', to: attendee, template: 'email_changed', ics: 'REQUEST', meeting };
      if (!ctx.previousEmail || sameAddress(ctx.previousEmail, attendee.email)) return [fresh];
      const old: Person = { ...attendee, email: ctx.previousEmail };
      return [fresh, { role: 'attendee', to: old, template: 'removed', ics: 'CANCEL', meeting }];
    }
  }
}
