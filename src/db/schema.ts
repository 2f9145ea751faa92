/**
 * Every table's row type, in one place (Kysely's `Database` interface style), and the runtime
 * description they are derived from: COLUMNS names each table's columns in their order with
 * their PostgreSQL type (udt name; "null" when nullable). test/db/schema-types.test.ts compares
 * COLUMNS with a migrated database's information_schema, so a migration that adds, renames,
 * drops or retypes a column fails that test until this file follows it.
 *
 * The tables themselves: src/db/schema.sql, then src/db/migrations/. Row types narrow a text or
 * jsonb column to the domain's vocabulary (src/domain/vocabulary.ts) where the schema or the
 * code guarantees it; query modules (src/db/queries/*) read rows as these types, or as a Pick
 * of them joined with the extra columns a query adds.
 */
import type {
  Attendee,
  BookingEventPayload,
  BookingEventType,
  BookingStatus,
  CalendarProvider,
  CalendarSyncStatus,
  DeliveryStatus,
  EmailRecipientRole,
  EmailStatus,
  IcsMethod,
  IdempotencyState,
  KeyKind,
  Mode,
  SchedulingType,
  WorkingHoursRule,
  Workload,
} from '../domain/vocabulary.ts';

export const COLUMNS = {
  organizations: {
    id: 'text',
    name: 'text',
    cancellation_enabled: 'bool',
    cancellation_cutoff_minutes: 'int4',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    schedule_version: 'int8',
  },
  teams: {
    id: 'text',
    organization_id: 'text',
    name: 'text',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  members: {
    id: 'uuid',
    organization_id: 'text',
    team_id: 'text',
    name: 'text',
    email: 'text',
    avatar_url: 'text null',
    role: 'text',
    skills: 'text[]',
    is_active: 'bool',
    timezone: 'text',
    max_bookings_per_day: 'int4',
    working_hours: 'jsonb',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  out_of_office: {
    id: 'int8',
    member_id: 'uuid',
    start_time: 'timestamptz',
    end_time: 'timestamptz',
    reason: 'text null',
  },
  event_types: {
    id: 'text',
    organization_id: 'text',
    team_id: 'text',
    name: 'text',
    slug: 'text',
    description: 'text null',
    duration: 'int4',
    slot_interval: 'int4',
    buffer_before: 'int4',
    buffer_after: 'int4',
    minimum_booking_notice: 'int4',
    scheduling_type: 'text',
    requires_confirmation: 'bool',
    mode: 'text',
    is_active: 'bool',
    is_personal: 'bool',
    owner_id: 'uuid null',
    external_id: 'text null',
    workload: 'jsonb',
    host_ids: 'uuid[] null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    deleted_at: 'timestamptz null',
  },
  event_type_custom_fields: {
    id: 'text',
    event_type_id: 'text',
    key: 'text',
    label: 'text',
    type: 'text',
    required: 'bool',
    options: 'jsonb null',
    position: 'int4',
  },
  calendars: {
    id: 'text',
    organization_id: 'text',
    user_id: 'uuid',
    team_id: 'text',
    provider: 'text',
    calendar_id: 'text',
    calendar_name: 'text null',
    provider_email: 'text null',
    timezone: 'text null',
    is_primary: 'bool',
    sync_status: 'text',
    last_sync_at: 'timestamptz null',
    supports_webhooks: 'bool',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    sync_error: 'text null',
  },
  calendar_connections: {
    calendar_id: 'text',
    url: 'text',
    username: 'text',
    password_encrypted: 'text',
    password_digest: 'text',
    sync_token: 'text null',
    ctag: 'text null',
    window_start: 'timestamptz null',
    window_end: 'timestamptz null',
    sync_lease: 'text null',
    sync_lease_until: 'timestamptz null',
    last_attempt_at: 'timestamptz null',
    write_error: 'text null',
    events_read: 'int4',
    skipped: 'int4',
    expanded_for: 'uuid null',
    expanded_timezone: 'text null',
  },
  calendar_resources: {
    calendar_id: 'text',
    href: 'text',
    etag: 'text null',
    data: 'text',
    events: 'int4',
    skipped: 'int4',
  },
  calendar_busy: {
    calendar_id: 'text',
    href: 'text',
    member_id: 'uuid',
    start_time: 'timestamptz',
    end_time: 'timestamptz',
  },
  calendar_event_writes: {
    root_booking_id: 'text',
    calendar_id: 'text',
    href: 'text',
    etag: 'text null',
    sequence: 'int4',
  },
  calendar_write_failures: {
    calendar_id: 'text',
    root_booking_id: 'text',
    retry_queued: 'bool',
  },
  api_keys: {
    id: 'text',
    organization_id: 'text',
    name: 'text',
    key_hash: 'text',
    key_prefix: 'text',
    kind: 'text',
    mode: 'text',
    scopes: 'text[]',
    allowed_origins: 'text[] null',
    created_at: 'timestamptz',
    revoked_at: 'timestamptz null',
  },
  idempotency_keys: {
    organization_id: 'text',
    mode: 'text',
    key: 'text',
    request_hash: 'text',
    state: 'text',
    response_status: 'int4 null',
    response_body: 'json null',
    created_at: 'timestamptz',
    locked_until: 'timestamptz null',
    team_id: 'text',
  },
  bookings: {
    id: 'text',
    organization_id: 'text',
    mode: 'text',
    event_type_id: 'text',
    status: 'text',
    start_time: 'timestamptz',
    end_time: 'timestamptz',
    attendee: 'jsonb',
    custom_fields: 'jsonb',
    metadata: 'json',
    external_id: 'text null',
    assigned_to_id: 'uuid null',
    host_ids: 'uuid[]',
    cancellation_reason: 'text null',
    cancelled_at: 'timestamptz null',
    rescheduled_from: 'text null',
    rescheduled_to: 'text null',
    version: 'int4',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  booking_members: {
    booking_id: 'text',
    member_id: 'uuid',
    mode: 'text',
    start_time: 'timestamptz',
    during: 'tstzrange',
    active: 'bool',
    created_at: 'timestamptz',
    during_start_ms: 'int8',
    during_end_ms: 'int8',
    start_ms: 'int8',
  },
  member_booking_counts: {
    member_id: 'uuid',
    mode: 'text',
    period_start: 'timestamptz',
    booked: 'int4',
  },
  member_last_booked: {
    member_id: 'uuid',
    mode: 'text',
    last_booked_at: 'timestamptz',
  },
  member_busy_days: {
    member_id: 'uuid',
    mode: 'text',
    day: 'date',
    holds: 'bytea',
  },
  booking_events: {
    id: 'text',
    organization_id: 'text',
    mode: 'text',
    booking_id: 'text null',
    type: 'text',
    payload: 'json',
    created_at: 'timestamptz',
  },
  webhooks: {
    id: 'text',
    organization_id: 'text',
    mode: 'text',
    url: 'text',
    events: 'text[]',
    description: 'text null',
    secret_encrypted: 'text',
    is_active: 'bool',
    failure_reason: 'text null',
    consecutive_failures: 'int4',
    rotated_at: 'timestamptz null',
    last_test_at: 'timestamptz null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  webhook_messages: {
    id: 'text',
    webhook_id: 'text',
    event_id: 'text',
    event_type: 'text',
    is_test: 'bool',
    body: 'text',
    status: 'text',
    next_position: 'int4',
    created_at: 'timestamptz',
  },
  webhook_deliveries: {
    id: 'text',
    message_id: 'text',
    webhook_id: 'text',
    event_id: 'text',
    event_type: 'text',
    attempt: 'int4',
    status: 'text',
    response_status: 'int4 null',
    duration_ms: 'int4 null',
    error: 'text null',
    created_at: 'timestamptz',
    next_attempt_at: 'timestamptz null',
    sent_by: 'text null',
  },
  email_outbox: {
    id: 'text',
    organization_id: 'text',
    mode: 'text',
    booking_id: 'text null',
    kind: 'text',
    recipient_role: 'text',
    to_address: 'text',
    to_name: 'text null',
    subject: 'text',
    text_body: 'text',
    ics: 'text null',
    ics_method: 'text null',
    ics_uid: 'text null',
    ics_sequence: 'int4 null',
    status: 'text',
    attempts: 'int4',
    last_error: 'text null',
    created_at: 'timestamptz',
    sent_at: 'timestamptz null',
  },
  calendar_sequences: {
    uid: 'text',
    organization_id: 'text',
    sequence: 'int4',
    updated_at: 'timestamptz',
  },
  worker_heartbeats: {
    pool_id: 'text',
    seen_at: 'timestamptz',
    lock_key: 'int4 null',
    lost_at: 'timestamptz null',
  },
} as const;

/** How node-postgres hands each column type to the service (src/db/pool.ts parses int8 as a number). */
interface TsOf {
  text: string;
  uuid: string;
  bool: boolean;
  int4: number;
  int8: number;
  timestamptz: Date;
  /** node-postgres's default: midnight of the day in the process's time zone */
  date: Date;
  bytea: Buffer;
  jsonb: unknown;
  /** kept as the text it was given, parsed by node-postgres as jsonb is */
  json: unknown;
  tstzrange: string;
  'text[]': string[];
  'uuid[]': string[];
}
export type PgType = keyof TsOf;
type ColumnType<S> = S extends `${infer T extends PgType} null` ? TsOf[T] | null : S extends PgType ? TsOf[S] : never;
/** A table's row as the driver returns it, before narrowing. */
type Columns<T extends keyof typeof COLUMNS> = { -readonly [C in keyof (typeof COLUMNS)[T]]: ColumnType<(typeof COLUMNS)[T][C]> };
/** The row with some columns narrowed; each narrowing must fit the column's own type. */
type Row<T extends keyof typeof COLUMNS, N extends { [C in keyof Columns<T>]?: Columns<T>[C] } = object> = Omit<Columns<T>, keyof N> & N;

export type OrganizationRow = Row<'organizations'>;
export type TeamRow = Row<'teams'>;
export type MemberRow = Row<'members', { working_hours: WorkingHoursRule[] }>;
export type OutOfOfficeRow = Row<'out_of_office'>;
export type EventTypeRow = Row<'event_types', { scheduling_type: SchedulingType; workload: Workload }>;
export type CustomFieldRow = Row<'event_type_custom_fields', { options: string[] | null }>;
export type CalendarRow = Row<'calendars', { provider: CalendarProvider; sync_status: CalendarSyncStatus }>;
export type CalendarConnectionRow = Row<'calendar_connections'>;
export type CalendarResourceRow = Row<'calendar_resources'>;
export type CalendarBusyRow = Row<'calendar_busy'>;
export type CalendarEventWriteRow = Row<'calendar_event_writes'>;
export type CalendarWriteFailureRow = Row<'calendar_write_failures'>;
export type ApiKeyRow = Row<'api_keys', { kind: KeyKind; mode: Mode }>;
export type IdempotencyKeyRow = Row<'idempotency_keys', { state: IdempotencyState }>;
export type BookingRow = Row<
  'bookings',
  {
    mode: Mode;
    status: BookingStatus;
    attendee: Attendee;
    custom_fields: Record<string, unknown>;
    metadata: Record<string, unknown>;
  }
>;
export type BookingMemberRow = Row<'booking_members', { mode: Mode }>;
export type MemberBookingCountRow = Row<'member_booking_counts', { mode: Mode }>;
export type MemberLastBookedRow = Row<'member_last_booked', { mode: Mode }>;
export type MemberBusyDayRow = Row<'member_busy_days', { mode: Mode }>;
export type BookingEventRow = Row<'booking_events', { mode: Mode; type: BookingEventType; payload: BookingEventPayload }>;
export type WebhookRow = Row<'webhooks', { mode: Mode }>;
export type WebhookMessageRow = Row<'webhook_messages', { status: DeliveryStatus }>;
export type WebhookDeliveryRow = Row<'webhook_deliveries', { status: DeliveryStatus }>;
export type EmailRow = Row<
  'email_outbox',
  {
    mode: Mode;
    recipient_role: EmailRecipientRole;
    ics_method: IcsMethod | null;
    status: EmailStatus;
  }
>;
export type CalendarSequenceRow = Row<'calendar_sequences'>;
export type WorkerHeartbeatRow = Row<'worker_heartbeats'>;

/** Table name -> row type. */
export interface Database {
  organizations: OrganizationRow;
  teams: TeamRow;
  members: MemberRow;
  out_of_office: OutOfOfficeRow;
  event_types: EventTypeRow;
  event_type_custom_fields: CustomFieldRow;
  calendars: CalendarRow;
  calendar_connections: CalendarConnectionRow;
  calendar_resources: CalendarResourceRow;
  calendar_busy: CalendarBusyRow;
  calendar_event_writes: CalendarEventWriteRow;
  calendar_write_failures: CalendarWriteFailureRow;
  api_keys: ApiKeyRow;
  idempotency_keys: IdempotencyKeyRow;
  bookings: BookingRow;
  booking_members: BookingMemberRow;
  member_booking_counts: MemberBookingCountRow;
  member_last_booked: MemberLastBookedRow;
  member_busy_days: MemberBusyDayRow;
  booking_events: BookingEventRow;
  webhooks: WebhookRow;
  webhook_messages: WebhookMessageRow;
  webhook_deliveries: WebhookDeliveryRow;
  email_outbox: EmailRow;
  calendar_sequences: CalendarSequenceRow;
  worker_heartbeats: WorkerHeartbeatRow;
}

/** Every table of COLUMNS has its row type, and no other table does. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const everyTableTyped: Same<keyof Database, keyof typeof COLUMNS> = true;
