/**
 * The service's words, shared by the domain, the database layer (src/db/schema.ts narrows its
 * columns to them) and the HTTP layer. Declared here, in the domain: the database stores them,
 * it does not define them.
 */

/** Test-mode and live-mode objects never see each other (decisions.md §3). */
export type Mode = 'test' | 'live';

/** Who a request acts for: the organization of its API key, and the key's mode. */
export interface Caller {
  organizationId: string;
  mode: Mode;
}

export type BookingStatus = 'DRAFT' | 'SCHEDULED' | 'PENDING_CONFIRMATION' | 'RESCHEDULED' | 'CANCELLED' | 'COMPLETED' | 'NO_SHOW';

export interface Attendee {
  name: string;
  email: string;
  phone?: string | null;
  timezone?: string | null;
}

export type BookingEventType =
  | 'BOOKING_CREATED'
  | 'BOOKING_UPDATED'
  | 'BOOKING_CANCELLED'
  | 'BOOKING_RESCHEDULED'
  | 'BOOKING_COMPLETED'
  | 'BOOKING_NO_SHOW'
  | 'ASSIGNMENT_CHANGED';

/** What the outbox stores for an event: the payload every delivery sends. */
export interface BookingEventPayload {
  event: BookingEventType;
  timestamp: string;
  data: Record<string, unknown>;
}

export type SchedulingType = 'SOLO' | 'ROUND_ROBIN' | 'COLLECTIVE';

/** An event type's effort split, in minutes. */
export interface Workload {
  prep: number;
  meeting: number;
  implementation: number;
  admin: number;
}

/** One rule of a member's working hours, in the member's own time zone. */
export interface WorkingHoursRule {
  days: string[];
  start: string;
  end: string;
}

export type KeyKind = 'publishable' | 'secret';

export type CalendarProvider = 'GOOGLE' | 'MICROSOFT' | 'APPLE' | 'CALDAV';
export type CalendarSyncStatus = 'PENDING' | 'SYNCING' | 'SUCCESS' | 'ERROR' | 'NEEDS_REAUTH';

export type EmailStatus = 'pending' | 'sent' | 'logged' | 'failed';
export type EmailRecipientRole = 'attendee' | 'host';
export type IcsMethod = 'REQUEST' | 'CANCEL';

/** A webhook message's state, and a delivery attempt's. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export type IdempotencyState = 'running' | 'done';
