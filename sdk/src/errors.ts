/**
 * Errors the client throws. Every API refusal is a BookingServiceError carrying the envelope's
 * `type`, `code` and `message`, the HTTP status and the request id; its class follows `type`
 * (so `err instanceof ConflictError` and `switch (err.code)` both work). A request that never got
 * an answer is a ConnectionError.
 */

import type { components } from './openapi.ts';

/** The error types the service documents (its OpenAPI document's ErrorType). */
export type ErrorType = components['schemas']['ErrorType'];

/**
 * The codes the service documents (its OpenAPI document's ErrorCode, so the two cannot drift); a
 * newer server may send others, so `code` stays open.
 */
export type ErrorCode = components['schemas']['ErrorCode'];

export interface ErrorDetails {
  status: number;
  type: string;
  code: string;
  message: string;
  requestId?: string;
  field?: string;
  headers?: Headers;
}

export class BookingServiceError extends Error {
  override name = 'BookingServiceError';
  /** HTTP status; 0 when no answer came (ConnectionError). */
  readonly status: number;
  readonly type: ErrorType | (string & {});
  readonly code: ErrorCode | (string & {});
  /** X-Request-Id of the failed request: quote it to support. */
  readonly requestId: string | undefined;
  /** The request field a validation error names, e.g. "attendee.email". */
  readonly field: string | undefined;
  readonly headers: Headers | undefined;

  constructor(details: ErrorDetails, options?: { cause?: unknown }) {
    super(details.message, options);
    this.status = details.status;
    this.type = details.type;
    this.code = details.code;
    this.requestId = details.requestId;
    this.field = details.field;
    this.headers = details.headers;
  }
}

/** 400 validation_error, 413 payload_too_large. */
export class InvalidRequestError extends BookingServiceError {
  override name = 'InvalidRequestError';
}
/** 401: no key, or a key the service does not know. */
export class AuthenticationError extends BookingServiceError {
  override name = 'AuthenticationError';
}
/** 403: the key lacks the scope, is publishable where a secret key is needed, or the origin is not allowed. */
export class PermissionError extends BookingServiceError {
  override name = 'PermissionError';
}
export class NotFoundError extends BookingServiceError {
  override name = 'NotFoundError';
}
/** 409: slot taken, invalid transition, concurrent change, or the same Idempotency-Key still running. */
export class ConflictError extends BookingServiceError {
  override name = 'ConflictError';
}
/** 422: cancellation policy, terminal state, event type in use, Idempotency-Key reused with another body. */
export class PreconditionError extends BookingServiceError {
  override name = 'PreconditionError';
}
/** 429, thrown once the retries are spent (or Retry-After exceeds maxRetryAfterMs). */
export class RateLimitError extends BookingServiceError {
  override name = 'RateLimitError';
  /** Seconds the service asked to wait (Retry-After). */
  get retryAfterSeconds(): number | undefined {
    return retryAfterMs(this.headers) === undefined ? undefined : Math.ceil(retryAfterMs(this.headers)! / 1000);
  }
}
/** 5xx, or an answer that is not the service's error envelope. */
export class ApiError extends BookingServiceError {
  override name = 'ApiError';
}
/** No answer: DNS, refused connection, reset, or the client's timeout. */
export class ConnectionError extends BookingServiceError {
  override name = 'ConnectionError';
}

const BY_TYPE: Record<ErrorType, typeof BookingServiceError> = {
  invalid_request_error: InvalidRequestError,
  authentication_error: AuthenticationError,
  permission_error: PermissionError,
  not_found_error: NotFoundError,
  conflict_error: ConflictError,
  precondition_error: PreconditionError,
  rate_limit_error: RateLimitError,
  api_error: ApiError,
};

const BY_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  422: 'precondition_error',
  429: 'rate_limit_error',
};

interface Envelope {
  error?: { type?: unknown; code?: unknown; message?: unknown; field?: unknown; request_id?: unknown };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The error for a non-2xx answer; `body` is the parsed JSON, or undefined when it was not JSON. */
export function errorFromResponse(status: number, headers: Headers, body: unknown, text: string): BookingServiceError {
  const e = (body && typeof body === 'object' ? (body as Envelope).error : undefined) ?? {};
  const type = str(e.type) ?? BY_STATUS[status] ?? 'api_error';
  const Class = BY_TYPE[type as ErrorType] ?? (status >= 500 ? ApiError : BookingServiceError);
  return new Class({
    status,
    type,
    code: str(e.code) ?? (status >= 500 ? 'internal_error' : 'unknown'),
    message: str(e.message) ?? (text.slice(0, 200) || `HTTP ${status}`),
    requestId: str(e.request_id) ?? headers.get('x-request-id') ?? undefined,
    field: str(e.field),
    headers,
  });
}

/** Retry-After (delta-seconds or an HTTP date) in milliseconds, or undefined. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
