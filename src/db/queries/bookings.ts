import type { Attendee, BookingEventPayload, BookingStatus } from '../../domain/vocabulary.ts';
import type { JobSpec } from '../jobs.ts';
import { jobSpecsJson } from '../jobs.ts';
import type { Db, Tx } from '../pool.ts';
import type { BookingRow, EventTypeRow, OrganizationRow } from '../schema.ts';
import { exec, one, rows, rowsReplanned } from '../pool.ts';
import type { HoldArgs } from './booking-members.ts';
import { blockedRange } from './booking-members.ts';
import type { BookingForEmail } from './email-outbox.ts';
import { withEmailContext } from './email-outbox.ts';
import { hostsOfTypeSql } from './members.ts';

/**
 * Tenancy and mode are part of every lookup: another organization's booking does not exist.
 * Lookups go by primary key alone and check tenancy on the row with this: with
 * (organization_id, mode) in the WHERE clause a planner without fresh statistics may pick a
 * composite index and scan the whole organization instead of the one-row key lookup
 * (docs/database.md, "Plans that must not depend on statistics").
 */
function ofTenant<R extends { organization_id: string; mode: string }>(row: R | undefined, organizationId: string, mode: string) {
  return row && row.organization_id === organizationId && row.mode === mode ? row : undefined;
}

export async function findById(db: Db, organizationId: string, mode: string, id: string): Promise<BookingRow | undefined> {
  return ofTenant(await one<BookingRow>(db, 'select * from bookings where id = $1', [id]), organizationId, mode);
}

/** The team of a booking's event type, if the booking is the organization's in this mode (ofTenant). */
export async function teamOf(db: Db, organizationId: string, mode: string, id: string): Promise<string | undefined> {
  const row = await one<{ team_id: string; organization_id: string; mode: string }>(
    db,
    `select et.team_id, b.organization_id, b.mode from bookings b join event_types et on et.id = b.event_type_id where b.id = $1`,
    [id],
  );
  return ofTenant(row, organizationId, mode)?.team_id;
}

export function findByExternalId(db: Db, organizationId: string, mode: string, externalId: string): Promise<BookingRow | undefined> {
  return one<BookingRow>(db, 'select * from bookings where external_id = $1 and organization_id = $2 and mode = $3', [
    externalId,
    organizationId,
    mode,
  ]);
}

export type NewBooking = Omit<
  BookingRow,
  'cancellation_reason' | 'cancelled_at' | 'rescheduled_to' | 'version' | 'created_at' | 'updated_at'
>;

export async function insertBooking(tx: Tx, b: NewBooking): Promise<BookingRow> {
  const row = await one<BookingRow>(
    tx,
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, custom_fields,
                           metadata, external_id, assigned_to_id, host_ids, rescheduled_from)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) returning *`,
    [
      b.id,
      b.organization_id,
      b.mode,
      b.event_type_id,
      b.status,
      b.start_time,
      b.end_time,
      JSON.stringify(b.attendee),
      JSON.stringify(b.custom_fields),
      JSON.stringify(b.metadata),
      b.external_id,
      b.assigned_to_id,
      b.host_ids,
      b.rescheduled_from,
    ],
  );
  return row!;
}

export interface NewDraft {
  booking: NewBooking;
  hold: HoldArgs;
  collective: boolean;
  /** BOOKING_CREATED: its id and payload; created_at and updated_at are filled in by the insert. */
  event: { id: string; payload: BookingEventPayload };
  broadcast: readonly string[];
  /** Jobs to add with the booking (its routing job). */
  jobs: readonly JobSpec[];
  /** Jobs to add only when an active subscription wants the event (its webhook fan-out). */
  jobsIfSubscribed: readonly JobSpec[];
}

/**
 * BOOKING_CREATED's payload text, which create_booking takes as a JSON string and stores as
 * written: the insert's created_at and updated_at (and the event's timestamp, the latter) go
 * where these strings are. A client's text never holds them: a NUL is refused at the edge
 * (decisions.md §6). The booking's metadata goes as its text too, so both keep their key order
 * and number literals (decisions.md §8).
 */
const CREATED_AT = '\u0000created_at\u0000';
const UPDATED_AT = '\u0000updated_at\u0000';

function eventPayloadText(payload: BookingEventPayload): string {
  return JSON.stringify({ ...payload, timestamp: UPDATED_AT, data: { ...payload.data, created_at: CREATED_AT, updated_at: UPDATED_AT } });
}

/** SQLSTATE of create_booking when no candidate can take the booking. */
export const NO_CANDIDATE = 'UB409';
/** SQLSTATE of create_booking when the event type was deleted or disabled after it was read. */
export const TYPE_GONE = 'UB410';

/**
 * POST /bookings' whole write in one statement, so in one implicit transaction
 * (src/db/functions/create_booking.sql): the booking in DRAFT, its holds (skipping candidates another create has
 * locked first), its event and its jobs. Fails with NO_CANDIDATE, TYPE_GONE, 23505 (external_id), 40001
 * or 40P01; nothing is written then. Answers the row and the members held.
 */
export async function createDraft(db: Db, d: NewDraft): Promise<{ booking: BookingRow; held: string[] }> {
  const row = await one<BookingRow & { held: string[] }>(
    db,
    `select (c.created).*, c.held
       from create_booking(booking => $1::jsonb, candidates => $2::uuid[], zones => $3::text[], day_from => $4::timestamptz[],
                           day_to => $5::timestamptz[], collective => $6, blocked => $7::tstzrange, event_id => $8,
                           payload => $9::jsonb, broadcast => $10::text[], jobs => $11::jsonb, jobs_if_subscribed => $12::jsonb) c`,
    [
      JSON.stringify({ ...d.booking, metadata: JSON.stringify(d.booking.metadata) }),
      d.hold.candidates,
      d.hold.zones,
      d.hold.dayFrom,
      d.hold.dayTo,
      d.collective,
      blockedRange(d.hold),
      d.event.id,
      JSON.stringify(eventPayloadText(d.event.payload)),
      d.broadcast,
      jobSpecsJson(d.jobs),
      jobSpecsJson(d.jobsIfSubscribed),
    ],
  );
  const { held, ...booking } = row!;
  return { booking, held };
}

/**
 * The booking with its organization's cancellation policy and its event type's
 * requires_confirmation (whether routing will make a DRAFT PENDING_CONFIRMATION).
 */
export type LockedBooking = BookingRow &
  Pick<OrganizationRow, 'cancellation_enabled' | 'cancellation_cutoff_minutes'> &
  Pick<EventTypeRow, 'requires_confirmation'>;

/**
 * Locks the booking for a change and returns it with its organization's cancellation policy
 * and whether its event type requires confirmation.
 * A lock held by another change for longer than 5 s fails with SQLSTATE 55P03.
 *
 * By primary key alone, tenancy checked on the row (ofTenant): with (organization_id, mode) in
 * the WHERE clause, PostgreSQL without statistics on bookings took bookings_attendee_email
 * (organization_id, mode, ...) and read every booking of the organization and mode to lock one
 * (about 1,800 rows per change in the soak bench, more as bookings grew). Another
 * organization's booking is locked only until the caller's transaction ends on its 404; its
 * id is a random key the caller does not know anyway.
 */
export async function lockForChange(tx: Tx, organizationId: string, mode: string, id: string): Promise<LockedBooking | undefined> {
  await exec(tx, `select set_config('lock_timeout', '5000ms', true)`);
  const row = await one<LockedBooking>(
    tx,
    `select b.*, o.cancellation_enabled, o.cancellation_cutoff_minutes,
            (select et.requires_confirmation from event_types et where et.id = b.event_type_id) as requires_confirmation
       from bookings b join organizations o on o.id = b.organization_id
      where b.id = $1
        for update of b`,
    [id],
  );
  return ofTenant(row, organizationId, mode);
}

/** held_ids: the members the booking holds, in host order (COLLECTIVE's first is assigned_to_id). */
export type BookingToRoute = BookingRow & Pick<EventTypeRow, 'requires_confirmation'> & { held_ids: string[] };

/**
 * Host order as hostsOfType gives it, for the held members of booking `b` of type `et`; a held
 * member who stopped being a host since the create comes after the hosts.
 */
const HELD_HOST = hostsOfTypeSql('b.organization_id', 'et.team_id', 'et.host_ids');

/**
 * The routing job's lock on a batch of bookings, by id alone, in id order. A booking another
 * transaction holds (a cancel or PATCH in progress, or an idle session) is skipped rather than
 * waited for: one batch routes every job of its process, so a wait would hold them all up. The
 * caller retries skipped ones later (existingIds tells them from ids that do not exist). NO KEY
 * UPDATE: rows that other transactions insert referencing a booking (their foreign-key checks
 * take KEY SHARE) do not make it look busy. Brings along what routing needs: the event type's
 * requires_confirmation and the members each booking holds, in host order.
 */
export function lockForRouting(tx: Tx, ids: readonly string[]): Promise<BookingToRoute[]> {
  return rowsReplanned<BookingToRoute>(
    tx,
    `select b.*, et.requires_confirmation,
            array(select m.id from booking_members bm join members m on m.id = bm.member_id
                   where bm.booking_id = b.id and bm.active
                   order by (${HELD_HOST.where}) is not true, ${HELD_HOST.orderBy}) as held_ids
       from bookings b join event_types et on et.id = b.event_type_id
      where b.id = any($1::text[]) order by b.id for no key update of b skip locked`,
    [ids],
  );
}

/** Which of `ids` are bookings. */
export async function existingIds(db: Db, ids: readonly string[]): Promise<string[]> {
  return (await rowsReplanned<{ id: string }>(db, 'select id from bookings where id = any($1::text[])', [ids])).map((r) => r.id);
}

/**
 * A changed booking's `updated_at`: the clock when the row is written, which is after its lock was
 * granted, not `now()`, the start of the transaction (a change that waited for another's lock
 * would go back in time), and at least a millisecond after the last one, the API's precision. So
 * the booking's successive states, and their webhook events' `timestamp`, order as they happened.
 */
const NEXT_UPDATED_AT = (column: string) => `greatest(clock_timestamp(), date_trunc('milliseconds', ${column}) + interval '1 millisecond')`;

export interface Assignment {
  id: string;
  status: BookingStatus;
  /** The members in host order; the first becomes assigned_to_id. */
  hostIds: readonly string[];
}

/**
 * Routing's change of a batch of bookings, in one statement: status, assigned member and hosts,
 * each booking coming back with what its emails show (withEmailContext), in `list` order.
 */
export async function assignRouted(tx: Tx, list: readonly Assignment[]): Promise<BookingForEmail[]> {
  const changed = await rowsReplanned<BookingForEmail>(
    tx,
    withEmailContext(`update bookings bk set status = v.status, assigned_to_id = v.host_ids[1], host_ids = v.host_ids,
            version = bk.version + 1, updated_at = ${NEXT_UPDATED_AT('bk.updated_at')}
       from (select v.id, v.status,
                    array(select h.id::uuid from jsonb_array_elements_text(v.hosts::jsonb) with ordinality as h(id, n) order by h.n) as host_ids
               from unnest($1::text[], $2::text[], $3::text[]) as v(id, status, hosts)) v
      where bk.id = v.id returning bk.*`),
    [list.map((a) => a.id), list.map((a) => a.status), list.map((a) => JSON.stringify(a.hostIds))],
  );
  const byId = new Map(changed.map((b) => [b.id, b]));
  return list.map((a) => byId.get(a.id)!);
}

export interface StatusChange {
  status: BookingStatus;
  cancellationReason?: string | null;
  cancelledAt?: Date;
  assignedToId?: string | null;
  hostIds?: string[];
  /**
   * A reschedule: the booking that replaces this one (checked at commit: deferred foreign key, src/db/schema.sql). Its
   * external_id is cleared, since the new booking takes it over.
   */
  rescheduledTo?: string;
}

/** Every change bumps `version` and `updated_at`. */
const APPLY_STATUS = `update bookings set status = $2,
            cancellation_reason = case when $3::boolean then $4 else cancellation_reason end,
            cancelled_at = coalesce($5, cancelled_at),
            assigned_to_id = case when $6::boolean then $7::uuid else assigned_to_id end,
            host_ids = coalesce($8::uuid[], host_ids),
            rescheduled_to = coalesce($9::text, rescheduled_to),
            external_id = case when $9 is null then external_id end,
            version = version + 1, updated_at = ${NEXT_UPDATED_AT('updated_at')}
      where id = $1 returning *`;

function applyStatusParams(id: string, c: StatusChange): unknown[] {
  return [
    id,
    c.status,
    c.cancellationReason !== undefined,
    c.cancellationReason ?? null,
    c.cancelledAt ?? null,
    c.assignedToId !== undefined,
    c.assignedToId ?? null,
    c.hostIds ?? null,
    c.rescheduledTo ?? null,
  ];
}

export async function applyStatus(tx: Tx, id: string, c: StatusChange): Promise<BookingRow> {
  return (await one<BookingRow>(tx, APPLY_STATUS, applyStatusParams(id, c)))!;
}

/**
 * applyStatus for a change that sends emails: the changed booking comes back with what its
 * messages show (email-outbox.ts), in the same round trip.
 */
export async function applyStatusForEmail(tx: Tx, id: string, c: StatusChange): Promise<BookingForEmail> {
  return (await one<BookingForEmail>(tx, withEmailContext(APPLY_STATUS), applyStatusParams(id, c)))!;
}

export async function updateAttendee(tx: Tx, id: string, attendee: Attendee): Promise<BookingRow> {
  const row = await one<BookingRow>(
    tx,
    `update bookings set attendee = $2, version = version + 1, updated_at = ${NEXT_UPDATED_AT('updated_at')} where id = $1 returning *`,
    [id, JSON.stringify(attendee)],
  );
  return row!;
}

export interface ListFilter {
  organizationId: string;
  mode: string;
  status?: BookingStatus;
  eventTypeId?: string;
  /** Matches the assigned member and, for COLLECTIVE bookings, every host. */
  assignedToId?: string;
  attendeeEmail?: string;
  startFrom?: Date;
  startBefore?: Date;
  /** Keyset position: rows strictly after (created_at, id) in (created_at desc, id desc) order. */
  after?: { createdAt: string; id: string };
  limit: number;
}

export type ListedBooking = BookingRow & { cursor_at: string };

/** Newest first over the bookings_list index; created_at keeps its microseconds in cursor_at. */
export function list(db: Db, f: ListFilter): Promise<ListedBooking[]> {
  const params: unknown[] = [f.organizationId, f.mode];
  const where = ['organization_id = $1', 'mode = $2'];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(sql(params.length));
  };
  if (f.status) add((n) => `status = $${n}`, f.status);
  if (f.eventTypeId) add((n) => `event_type_id = $${n}`, f.eventTypeId);
  if (f.assignedToId) add((n) => `(assigned_to_id = $${n}::uuid or $${n}::uuid = any (host_ids))`, f.assignedToId);
  if (f.attendeeEmail) add((n) => `lower(attendee ->> 'email') = lower($${n})`, f.attendeeEmail);
  if (f.startFrom) add((n) => `start_time >= $${n}`, f.startFrom);
  if (f.startBefore) add((n) => `start_time < $${n}`, f.startBefore);
  if (f.after) {
    params.push(f.after.createdAt, f.after.id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(f.limit);
  return rows<ListedBooking>(
    db,
    `select *, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
       from bookings where ${where.join(' and ')}
      order by created_at desc, id desc limit $${params.length}`,
    params,
  );
}
