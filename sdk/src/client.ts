import type { ClientOptions, RequestOptions } from './http.ts';
import { Transport } from './http.ts';
import type { Ok, OperationName, OpOf, PathParams, QueryParams, RequestBody } from './operations.ts';
import { OPERATIONS } from './operations.ts';
import { Paginator, cursorNext, offsetNext } from './pagination.ts';

type Body<N extends OperationName> = RequestBody<OpOf<N>>;
type Query<N extends OperationName> = QueryParams<OpOf<N>>;
type Item<T> = T extends readonly (infer I)[] ? I : never;

// The resources, named after what the service answers (derived from the document by path+method).
export type Booking = Ok<'bookings.get'>['booking'];
export type BookingCreateParams = Body<'bookings.create'>;
export type BookingUpdateParams = Body<'bookings.update'>;
export type BookingCancelParams = Body<'bookings.cancel'>;
export type BookingRescheduleParams = Body<'bookings.reschedule'>;
export type BookingListParams = Query<'bookings.list'>;
export type BookingPage = Ok<'bookings.list'>;
export type EventType = Item<Ok<'eventTypes.list'>['event_types']>;
export type EventTypeDetail = Ok<'eventTypes.get'>['event_type'];
export type EventTypeCreateParams = Body<'eventTypes.create'>;
export type EventTypeUpdateParams = Body<'eventTypes.update'>;
export type EventTypeFields = Omit<Ok<'eventTypes.fields'>, 'success'>;
export type CustomField = Item<EventTypeFields['custom_fields']>;
export type AvailabilityParams = Query<'availability.get'>;
export type Availability = Omit<Ok<'availability.get'>, 'success'>;
export type Slot = Item<Availability['slots']>;
export type FreeBusyParams = Query<'freebusy.get'>;
export type FreeBusy = Omit<Ok<'freebusy.get'>, 'success'>;
export type TeamMember = Item<Ok<'teamMembers.list'>['members']>;
export type TeamMemberListParams = Query<'teamMembers.list'>;
export type TeamMemberPage = Ok<'teamMembers.list'>;
export type AvailableMember = Item<Ok<'teamMembers.available'>['members']>;
export type AvailableMembersParams = Query<'teamMembers.available'>;
export type AvailableMembersPage = Ok<'teamMembers.available'>;
export type TeamMemberProfile = Ok<'teamMembers.get'>['member'];
export type Calendar = Item<Ok<'calendars.list'>['calendars']>;
export type CalendarListParams = Query<'calendars.list'>;
export type CalendarPage = Ok<'calendars.list'>;
export type UserCalendars = Omit<Ok<'calendars.forUser'>, 'success'>;
export type Webhook = Ok<'webhooks.get'>['webhook'];
export type WebhookWithSecret = Ok<'webhooks.create'>['webhook'];
export type WebhookCreateParams = Body<'webhooks.create'>;
export type WebhookUpdateParams = Body<'webhooks.update'>;
export type WebhookDelivery = Item<Ok<'webhooks.deliveries'>['deliveries']>;
export type WebhookDeliveryListParams = Query<'webhooks.deliveries'>;
export type WebhookDeliveryPage = Ok<'webhooks.deliveries'>;
export type WebhookStats = Ok<'webhooks.stats'>['stats'];

const strip = <T extends { success: unknown }>({ success: _success, ...rest }: T): Omit<T, 'success'> => rest;

/**
 * The API client. Every operation of the document is one method (see OPERATIONS); single objects
 * come back unwrapped (`bookings.get()` answers the booking), lists as async iterators over pages.
 */
export class BookingServiceClient {
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  /** Calls an operation by name; the resource methods below are thin wrappers over this. */
  request<N extends OperationName>(
    name: N,
    args: { path?: PathParams<OpOf<N>>; query?: Query<N>; body?: Body<N> } = {},
    options?: RequestOptions,
  ): Promise<Ok<N>> {
    const { method, path } = OPERATIONS[name];
    return this.transport.send<Ok<N>>(
      {
        method,
        path,
        pathParams: args.path as Record<string, string> | undefined,
        query: args.query as object | undefined,
        body: args.body,
      },
      options,
    );
  }

  readonly health = {
    /** GET /healthz: the process is up. */
    check: (options?: RequestOptions) => this.request('health.check', {}, options).then(strip),
    /** GET /readyz: the database answers. */
    ready: (options?: RequestOptions) => this.request('health.ready', {}, options).then(strip),
  };

  readonly bookings = {
    /** POST /v1/bookings, with a generated Idempotency-Key unless `options.idempotencyKey` is given. */
    create: async (params: BookingCreateParams, options?: RequestOptions): Promise<Booking> =>
      (await this.request('bookings.create', { body: params }, options)).booking,
    get: async (id: string, options?: RequestOptions): Promise<Booking> =>
      (await this.request('bookings.get', { path: { id } }, options)).booking,
    getByExternalId: async (externalId: string, options?: RequestOptions): Promise<Booking> =>
      (await this.request('bookings.getByExternalId', { path: { externalId } }, options)).booking,
    /** Every booking matching the filters, newest first, fetched page by page as the loop advances. */
    list: (params: BookingListParams = {}, options?: RequestOptions): Paginator<Booking, BookingPage> =>
      new Paginator(
        (next) => this.request('bookings.list', { query: { ...params, ...next } }, options),
        (page) => page.bookings,
        cursorNext,
      ),
    /** PATCH /v1/bookings/{id}: attendee details only. */
    update: async (id: string, params: BookingUpdateParams, options?: RequestOptions): Promise<Booking> =>
      (await this.request('bookings.update', { path: { id }, body: params }, options)).booking,
    /** DELETE /v1/bookings/{id}; a retry with the same Idempotency-Key replays the first answer. */
    cancel: async (id: string, params?: BookingCancelParams, options?: RequestOptions): Promise<Booking> =>
      (await this.request('bookings.cancel', { path: { id }, body: params }, options)).booking,
    /** Answers the new booking (status RESCHEDULED); the old one is CANCELLED. */
    reschedule: async (id: string, params: BookingRescheduleParams, options?: RequestOptions): Promise<Booking> =>
      (await this.request('bookings.reschedule', { path: { id }, body: params }, options)).booking,
    confirm: async (id: string, options?: RequestOptions): Promise<Booking> =>
      (await this.request('bookings.confirm', { path: { id } }, options)).booking,
    complete: async (id: string, options?: RequestOptions): Promise<Booking> =>
      (await this.request('bookings.complete', { path: { id } }, options)).booking,
    noShow: async (id: string, options?: RequestOptions): Promise<Booking> =>
      (await this.request('bookings.noShow', { path: { id } }, options)).booking,
  };

  readonly eventTypes = {
    /** Active event types, sorted by name. */
    list: async (options?: RequestOptions): Promise<EventType[]> => (await this.request('eventTypes.list', {}, options)).event_types,
    get: async (id: string, options?: RequestOptions): Promise<EventTypeDetail> =>
      (await this.request('eventTypes.get', { path: { id } }, options)).event_type,
    /** The booking form: standard fields and custom fields with their rules. */
    fields: async (id: string, options?: RequestOptions): Promise<EventTypeFields> =>
      strip(await this.request('eventTypes.fields', { path: { id } }, options)),
    create: async (params: EventTypeCreateParams, options?: RequestOptions): Promise<EventTypeDetail> =>
      (await this.request('eventTypes.create', { body: params }, options)).event_type,
    /** Answers `{ event_type, warning }`: the warning says when a change affects existing bookings. */
    update: async (id: string, params: EventTypeUpdateParams, options?: RequestOptions) =>
      strip(await this.request('eventTypes.update', { path: { id }, body: params }, options)),
    /** Soft delete; answers `{ id, deleted_at }`. */
    delete: async (id: string, options?: RequestOptions) => (await this.request('eventTypes.delete', { path: { id } }, options)).event_type,
  };

  readonly availability = {
    /** Free slot starts (UTC) of an event type between two local dates of `timezone`. */
    get: async (params: AvailabilityParams, options?: RequestOptions): Promise<Availability> =>
      strip(await this.request('availability.get', { query: params }, options)),
  };

  readonly freebusy = {
    get: async (userId: string, params: FreeBusyParams, options?: RequestOptions): Promise<FreeBusy> =>
      strip(await this.request('freebusy.get', { path: { userId }, query: params }, options)),
  };

  readonly teamMembers = {
    list: (params: TeamMemberListParams = {}, options?: RequestOptions): Paginator<TeamMember, TeamMemberPage> =>
      new Paginator(
        (next) => this.request('teamMembers.list', { query: { ...params, ...next } }, options),
        (page) => page.members,
        offsetNext,
      ),
    /** Members with their availability on `date`; `pages()` gives the date and pagination too. */
    available: (params: AvailableMembersParams = {}, options?: RequestOptions): Paginator<AvailableMember, AvailableMembersPage> =>
      new Paginator(
        (next) => this.request('teamMembers.available', { query: { ...params, ...next } }, options),
        (page) => page.members,
        offsetNext,
      ),
    get: async (id: string, options?: RequestOptions): Promise<TeamMemberProfile> =>
      (await this.request('teamMembers.get', { path: { id } }, options)).member,
  };

  readonly calendars = {
    list: (params: CalendarListParams = {}, options?: RequestOptions): Paginator<Calendar, CalendarPage> =>
      new Paginator(
        (next) => this.request('calendars.list', { query: { ...params, ...next } }, options),
        (page) => page.calendars,
        offsetNext,
      ),
    /** One member's calendars: `{ userId, calendars }`. */
    forUser: async (userId: string, options?: RequestOptions): Promise<UserCalendars> =>
      strip(await this.request('calendars.forUser', { path: { userId } }, options)),
  };

  readonly webhooks = {
    /** The answer carries `secret`, shown this once. */
    create: async (params: WebhookCreateParams, options?: RequestOptions): Promise<WebhookWithSecret> =>
      (await this.request('webhooks.create', { body: params }, options)).webhook,
    list: async (options?: RequestOptions): Promise<Webhook[]> => (await this.request('webhooks.list', {}, options)).webhooks,
    get: async (id: string, options?: RequestOptions): Promise<Webhook> =>
      (await this.request('webhooks.get', { path: { id } }, options)).webhook,
    update: async (id: string, params: WebhookUpdateParams, options?: RequestOptions): Promise<Webhook> =>
      (await this.request('webhooks.update', { path: { id }, body: params }, options)).webhook,
    /** Answers `{ id, deleted }`. */
    delete: async (id: string, options?: RequestOptions) => strip(await this.request('webhooks.delete', { path: { id } }, options)),
    /** Queues a signed BOOKING_CREATED sample marked `test: true`; at most one a minute per webhook. */
    test: async (id: string, options?: RequestOptions) => (await this.request('webhooks.test', { path: { id } }, options)).test,
    /** Answers `{ id, secret, rotated_at }`; the old secret stops verifying at once. */
    rotateSecret: async (id: string, options?: RequestOptions) =>
      (await this.request('webhooks.rotateSecret', { path: { id } }, options)).webhook,
    deliveries: (
      id: string,
      params: WebhookDeliveryListParams = {},
      options?: RequestOptions,
    ): Paginator<WebhookDelivery, WebhookDeliveryPage> =>
      new Paginator(
        (next) => this.request('webhooks.deliveries', { path: { id }, query: { ...params, ...next } }, options),
        (page) => page.deliveries,
        offsetNext,
      ),
    stats: async (id: string, options?: RequestOptions): Promise<WebhookStats> =>
      (await this.request('webhooks.stats', { path: { id } }, options)).stats,
  };
}

export function createClient(options: ClientOptions): BookingServiceClient {
  return new BookingServiceClient(options);
}
