import type { EmailStatus } from '../../domain/vocabulary.ts';
import type { Db, Tx } from '../pool.ts';
import { exec, one, rows, rowsReplanned } from '../pool.ts';
import type { BookingRow, EmailRow, EventTypeRow, MemberRow } from '../schema.ts';

/** An outbox message as the change that causes it writes it; the rest of the row has defaults. */
export type NewEmail = Omit<EmailRow, 'booking_id' | 'status' | 'attempts' | 'last_error' | 'created_at' | 'sent_at'> & {
  booking_id: string;
};

const COLUMNS: (keyof NewEmail)[] = [
  'id',
  'organization_id',
  'mode',
  'booking_id',
  'kind',
  'recipient_role',
  'to_address',
  'to_name',
  'subject',
  'text_body',
  'ics',
  'ics_method',
  'ics_uid',
  'ics_sequence',
];

/** The PostgreSQL type of each column, for the arrays insertEmails unnests. */
const COLUMN_TYPES: Record<keyof NewEmail, string> = {
  id: 'text',
  organization_id: 'text',
  mode: 'text',
  booking_id: 'text',
  kind: 'text',
  recipient_role: 'text',
  to_address: 'text',
  to_name: 'text',
  subject: 'text',
  text_body: 'text',
  ics: 'text',
  ics_method: 'text',
  ics_uid: 'text',
  ics_sequence: 'integer',
};

/**
 * One column array per column, unnested: whatever the number of messages (a routing batch writes
 * two per booking) the statement text is the same, so each connection parses and plans it once.
 * A multi-row VALUES list made a new statement for every batch size, and with batch sizes from
 * one to the worker's concurrency most batches parsed and planned a statement of hundreds of
 * parameters afresh.
 */
const INSERT_EMAILS = `insert into email_outbox (${COLUMNS.join(', ')})
  select * from unnest(${COLUMNS.map((c, i) => `$${i + 1}::${COLUMN_TYPES[c]}[]`).join(', ')})`;

/** One insert: a change, or a routing batch, writes all its messages in a single round trip. */
export async function insertEmails(tx: Tx, emails: readonly NewEmail[]): Promise<void> {
  if (emails.length === 0) return;
  await exec(
    tx,
    INSERT_EMAILS,
    COLUMNS.map((c) => emails.map((e) => e[c])),
  );
}

export function findEmail(db: Db, id: string): Promise<EmailRow | undefined> {
  return one<EmailRow>(db, 'select * from email_outbox where id = $1', [id]);
}

export function emailsOfBooking(db: Db, bookingId: string): Promise<EmailRow[]> {
  return rows<EmailRow>(db, 'select * from email_outbox where booking_id = $1 order by created_at, id', [bookingId]);
}

/** The rows with these ids (those that exist). */
export function findEmails(db: Db, ids: readonly string[]): Promise<EmailRow[]> {
  return rowsReplanned<EmailRow>(db, 'select * from email_outbox where id = any($1::text[])', [ids]);
}

export interface Attempt {
  id: string;
  status: EmailStatus;
  at: Date;
  error: string | null;
}

/** Records attempts, each with its own outcome, in one statement: sent/logged stamp sent_at, the others keep the error. */
export async function recordAttempts(db: Db, attempts: readonly Attempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await rowsReplanned(
    db,
    `update email_outbox e set status = a.status, attempts = e.attempts + 1, last_error = a.error,
       sent_at = case when a.status in ('sent', 'logged') then a.at else e.sent_at end
     from unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[]) as a(id, status, at, error)
     where e.id = a.id`,
    [attempts.map((a) => a.id), attempts.map((a) => a.status), attempts.map((a) => a.at), attempts.map((a) => a.error)],
  );
}

/**
 * The next SEQUENCE of each calendar UID (distinct): 0 for the first invitation, then one more
 * per update.
 */
export async function nextSequences(tx: Tx, items: readonly { organizationId: string; uid: string }[]): Promise<Map<string, number>> {
  if (items.length === 0) return new Map();
  const got = await rows<{ uid: string; sequence: number }>(
    tx,
    `insert into calendar_sequences (uid, organization_id, sequence)
     select uid, organization_id, 0 from unnest($1::text[], $2::text[]) as v(uid, organization_id)
     on conflict (uid) do update set sequence = calendar_sequences.sequence + 1, updated_at = now()
     returning uid, sequence`,
    [items.map((i) => i.uid), items.map((i) => i.organizationId)],
  );
  return new Map(got.map((r) => [r.uid, r.sequence]));
}

/** Like nextSequences, but only for UIDs that were already sent: the others are missing from the answer. */
export async function nextSequencesIfSent(tx: Tx, uids: readonly string[]): Promise<Map<string, number>> {
  if (uids.length === 0) return new Map();
  const got = await rows<{ uid: string; sequence: number }>(
    tx,
    'update calendar_sequences set sequence = sequence + 1, updated_at = now() where uid = any($1::text[]) returning uid, sequence',
    [uids],
  );
  return new Map(got.map((r) => [r.uid, r.sequence]));
}

// The read below gathers what a message shows. It lives here, beside the outbox, because it is
// shaped for rendering emails (inactive members included: a member who left still gets the
// cancellation of their meeting), and it is one round trip because it runs inside every
// booking change's transaction.

export type EmailMember = Pick<MemberRow, 'id' | 'name' | 'email' | 'timezone'>;

export interface BookingForEmail extends BookingRow {
  event_type_name: EventTypeRow['name'] | null;
  event_type_description: EventTypeRow['description'];
  /** The assigned member, then host_ids, in that order (duplicates possible). */
  hosts: EmailMember[];
  /** The first booking of the reschedule chain (following rescheduled_from); names the meeting. */
  root_id: string;
  /** The transaction's start time: when the change happened. */
  tx_now: Date;
}

/**
 * The booking rows `rowsSql` yields (a SELECT, or an UPDATE … RETURNING *: the row after the
 * change) with what a message shows: event type, hosts, the reschedule chain's root, the time.
 */
export function withEmailContext(rowsSql: string): string {
  return `with b as (${rowsSql})
    select b.*, et.name as event_type_name, et.description as event_type_description,
       (select coalesce(json_agg(json_build_object('id', m.id, 'name', m.name, 'email', m.email, 'timezone', m.timezone)
                                 order by w.n), '[]')
          from unnest(array_remove(array[b.assigned_to_id], null) || b.host_ids) with ordinality as w(id, n)
          join members m on m.id = w.id and m.organization_id = b.organization_id) as hosts,
       (with recursive chain (id, rescheduled_from, depth) as (
          select b.id, b.rescheduled_from, 0
          union all
          -- a key lookup per step whatever the plan: as a join, a generic plan made while the
          -- table was small scans all of bookings at each step
          select c.rescheduled_from, (select p.rescheduled_from from bookings p where p.id = c.rescheduled_from), c.depth + 1
            from chain c where c.rescheduled_from is not null and c.depth < 10000
        ) select id from chain order by depth desc limit 1) as root_id,
       now() as tx_now
     from b left join event_types et on et.id = b.event_type_id`;
}

const BOOKING_FOR_EMAIL = withEmailContext('select * from bookings where id = $1');

export function bookingForEmail(tx: Tx, id: string): Promise<BookingForEmail | undefined> {
  return one<BookingForEmail>(tx, BOOKING_FOR_EMAIL, [id]);
}
