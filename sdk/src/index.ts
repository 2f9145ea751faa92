export { BookingServiceClient, createClient } from './client.ts';
export type * from './client.ts';
export type { ClientOptions, RequestOptions } from './http.ts';
export {
  ApiError,
  AuthenticationError,
  BookingServiceError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PreconditionError,
  RateLimitError,
} from './errors.ts';
export type { ErrorCode, ErrorType } from './errors.ts';
export { Paginator } from './pagination.ts';
export { OPERATIONS } from './operations.ts';
export type { OperationName } from './operations.ts';
export { WEBHOOK_EVENTS, WebhookVerificationError, verifyWebhook } from './webhooks.ts';
export type { HeadersLike, WebhookEvent, WebhookEventName, WebhookEventOf } from './webhooks.ts';
export type { paths } from './openapi.ts';
