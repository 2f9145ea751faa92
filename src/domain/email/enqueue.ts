import { randomBytes } from 'node:crypto';
import type { Tx } from '../../db/pool.ts';
import type { BookingForEmail, NewEmail } from '../../db/queries/email-outbox.ts';
import * as outbox from '../../db/queries/email-outbox.ts';
import { enqueue } from '../../db/jobs.ts';
import { renderIcs } from './ics.ts';
import type { BookingEmailKind, EmailContext, Meeting, Person, PlannedEmail } from './plan.ts';
import { planEmails } from './plan.ts';
import { icsDescription, renderEmail } from './render.ts';

export type { BookingEmailKind };

export interface EnqueueBookingEmailInput {
  bookingId: string;
  kind: BookingEmailKind;
  /** For 'email_changed': the attendee's address before the change (it receives a CANCEL). */
  previousEmail?: string;
  /** For 'cancelled': false when the attendee was never invited (it awaited confirmation, or routing). */
  attendeeInvited?: boolean;
  /** DTSTAMP of the invitations; defaults to the transaction's start time. */
  now?: Date;
  /** The booking as changed, when the change read it already (applyStatusForEmail). */
  booking?: BookingForEmail;
}

/** Attempts per message before it is marked failed (graphile-worker backs off exponentially). */
export const SEND_EMAIL_MAX_ATTEMPTS = 10;
/** graphile-worker runs lower numbers first: under load, routing (priority −10) is not kept waiting by mail. */
const SEND_EMAIL_PRIORITY = 10;

/** The calendar UID of a meeting: the first booking of its reschedule chain. */
export function calendarUid(rootBookingId: string): string {
  return `${rootBookingId}@booking-service`;
}

/**
 * The booking ids named by UID lines of calendar text shaped as calendarUid makes them (property
 * names are case-insensitive, RFC 5545; the ids are lower-case, so another case finds none).
 */
export function meetingIdsIn(text: string): string[] {
  return [...text.matchAll(/^UID:(bkg_[0-9a-f]{24})@booking-service\r?$/gim)].map((m) => m[1]!);
}

/** The assigned member first, each host once. */
function hostsOf(booking: BookingForEmail): Person[] {
  const seen = new Set<string>();
  return booking.hosts
    .filter((m) => !seen.has(m.id) && seen.add(m.id))
    .map((m) => ({ name: m.name, email: m.email, timezone: m.timezone }));
}

interface LoadedContext extends EmailContext {
  organizationId: string;
  rootId: string;
  txNow: Date;
}

async function loadContext(tx: Tx, input: EnqueueBookingEmailInput): Promise<LoadedContext> {
  const booking = input.booking ?? (await outbox.bookingForEmail(tx, input.bookingId));
  if (!booking) throw new Error(`enqueueBookingEmail: booking ${input.bookingId} does not exist`);
  let previous: Meeting | undefined;
  if (input.kind === 'rescheduled' && booking.rescheduled_from) {
    const old = await outbox.bookingForEmail(tx, booking.rescheduled_from);
    if (old) previous = { start: old.start_time, end: old.end_time, hosts: hostsOf(old) };
  }
  return {
    organizationId: booking.organization_id,
    rootId: booking.root_id,
    txNow: booking.tx_now,
    kind: input.kind,
    mode: booking.mode,
    bookingId: booking.id,
    status: booking.status,
    eventTypeName: booking.event_type_name ?? 'Meeting',
    eventTypeDescription: booking.event_type_description,
    attendee: { name: booking.attendee.name, email: booking.attendee.email, timezone: booking.attendee.timezone ?? 'UTC' },
    meeting: { start: booking.start_time, end: booking.end_time, hosts: hostsOf(booking) },
    cancellationReason: booking.cancellation_reason,
    previous,
    previousEmail: input.previousEmail,
    attendeeInvited: input.attendeeInvited,
  };
}

/** One change's messages, planned, before their SEQUENCE is known. */
interface Draft {
  input: EnqueueBookingEmailInput;
  ctx: LoadedContext;
  planned: PlannedEmail[];
  uid: string;
}

/**
 * The SEQUENCE each draft's invitations carry, or undefined when they carry none: a request
 * starts or updates the meeting; a cancellation only updates one that was sent (a booking
 * cancelled before any invitation went out gets a plain email). One statement per kind for
 * the whole batch; a UID twice in one batch (not something routing makes) goes one at a time,
 * so each change still gets its own number.
 */
async function resolveSequences(tx: Tx, drafts: readonly Draft[]): Promise<(number | undefined)[]> {
  const uids = drafts.map((d) => d.uid);
  if (new Set(uids).size < uids.length) {
    const out: (number | undefined)[] = [];
    for (const d of drafts) out.push(...(await resolveSequences(tx, [d])));
    return out;
  }
  const requests = drafts.filter((d) => d.planned.some((e) => e.ics === 'REQUEST'));
  const cancels = drafts.filter((d) => !requests.includes(d) && d.planned.some((e) => e.ics === 'CANCEL'));
  const started = await outbox.nextSequences(
    tx,
    requests.map((d) => ({ organizationId: d.ctx.organizationId, uid: d.uid })),
  );
  const updated = await outbox.nextSequencesIfSent(
    tx,
    cancels.map((d) => d.uid),
  );
  return drafts.map((d) => started.get(d.uid) ?? updated.get(d.uid));
}

/** The planned messages of one change, rendered, with the invitation they carry. */
function render(draft: Draft, sequence: number | undefined): NewEmail[] {
  const { ctx, uid } = draft;
  let planned = draft.planned;
  const organizer = ctx.meeting.hosts[0];
  if (sequence === undefined) planned = planned.map((e) => ({ ...e, ics: null }));
  // The first invitation of a meeting has no earlier one to withdraw from a replaced address.
  if (sequence === 0) planned = planned.filter((e) => e.template !== 'removed');
  const stamp = draft.input.now ?? ctx.txNow;

  // Recipients of one change mostly share one invitation: render each distinct one once.
  const icsCache = new Map<string, string>();
  const icsFor = (e: PlannedEmail): string | null => {
    if (!e.ics || !organizer || sequence === undefined) return null;
    const tentative = e.template === 'confirmation_request';
    // while the hosts decide, the other hosts of a collective meeting have not accepted yet
    const coHosts = e.meeting.hosts.slice(1).map((h) => (tentative ? { ...h, accepted: false } : h));
    const attendees = e.template === 'removed' ? [e.to] : [ctx.attendee, ...coHosts];
    const key = JSON.stringify([
      e.ics,
      tentative,
      e.meeting.start,
      e.meeting.end,
      e.meeting.hosts[0]?.email,
      attendees.map((a) => a.email),
    ]);
    let text = icsCache.get(key);
    if (text === undefined) {
      text = renderIcs({
        method: e.ics,
        uid,
        sequence,
        stamp,
        start: e.meeting.start,
        end: e.meeting.end,
        summary: ctx.eventTypeName,
        description: icsDescription(ctx, e.meeting),
        organizer: e.meeting.hosts[0] ?? organizer,
        attendees,
        tentative,
      });
      icsCache.set(key, text);
    }
    return text;
  };

  return planned.map((e) => {
    const { subject, text } = renderEmail(ctx, e);
    const ics = icsFor(e);
    return {
      id: `eml_${randomBytes(12).toString('hex')}`,
      organization_id: ctx.organizationId,
      mode: ctx.mode,
      booking_id: ctx.bookingId,
      kind: ctx.kind,
      recipient_role: e.role,
      to_address: e.to.email,
      to_name: e.to.name,
      subject,
      text_body: text,
      ics,
      ics_method: ics ? e.ics : null,
      ics_uid: ics ? uid : null,
      ics_sequence: ics ? (sequence ?? null) : null,
    };
  });
}

/**
 * Writes the emails of booking changes into the outbox and enqueues one 'send-email' job for
 * them, on the caller's transaction: the emails exist exactly when the changes commit, and a
 * process dying after the commit loses none. One job per call, not per message nor per change:
 * each queued job costs the database an insert, a fetch and a completion and the worker a
 * dispatch, and the messages are due together. Routing writes the first emails of a whole
 * batch of bookings (about 11 under the bench's load) here, so its mail costs one job instead
 * of one per booking. A refusing address or a failing send costs the others nothing: the job
 * tries every message, and its retry sends only the ones not yet sent.
 */
export async function enqueueBookingEmails(tx: Tx, inputs: readonly EnqueueBookingEmailInput[]): Promise<void> {
  const drafts: Draft[] = [];
  for (const input of inputs) {
    const ctx = await loadContext(tx, input);
    let planned = planEmails(ctx);
    if (planned.length === 0) continue;
    // An invitation needs an organizer; a booking no member holds yet has no meeting to invite to.
    if (!ctx.meeting.hosts[0]) planned = planned.map((e) => ({ ...e, ics: null }));
    drafts.push({ input, ctx, planned, uid: calendarUid(ctx.rootId) });
  }
  if (drafts.length === 0) return;
  const sequences = await resolveSequences(tx, drafts);
  const emails = drafts.flatMap((d, i) => render(d, sequences[i]));
  if (emails.length === 0) return;
  await outbox.insertEmails(tx, emails);
  const emailIds = emails.map((e) => e.id);
  await enqueue(tx, 'send-email', { emailIds }, { maxAttempts: SEND_EMAIL_MAX_ATTEMPTS, priority: SEND_EMAIL_PRIORITY });
}

/** The emails of one booking change (see enqueueBookingEmails). */
export function enqueueBookingEmail(tx: Tx, input: EnqueueBookingEmailInput): Promise<void> {
  return enqueueBookingEmails(tx, [input]);
}
