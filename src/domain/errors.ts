/**
 * One class per HTTP outcome. Domain code throws these; src/http/errors.ts is the only place
 * that turns them (and every other error) into the spec's envelope.
 */
/** Every `error.type` the service answers with (decisions §6); the OpenAPI document enumerates them. */
export const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'conflict_error',
  'precondition_error',
  'rate_limit_error',
  'api_error',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export type PreconditionCode =
  'precondition_failed' | 'cancellation_disabled' | 'cancellation_cutoff_passed' | 'terminal_state' | 'idempotency_key_reused';

/**
 * Every `error.code` the service answers with: the spec's table and the 422 codes of decisions §6.
 * A new error class must add its code here (the `code` field is typed by this list), so the
 * OpenAPI document's enum cannot fall behind.
 */
export const ERROR_CODES = [
  'validation_error',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'request_timeout',
  'uri_too_long',
  'headers_too_large',
  'precondition_failed',
  'cancellation_disabled',
  'cancellation_cutoff_passed',
  'terminal_state',
  'idempotency_key_reused',
  'rate_limit_exceeded',
  'internal_error',
] as const satisfies readonly string[];
export type ErrorCode = (typeof ERROR_CODES)[number];

export abstract class DomainError extends Error {
  abstract readonly status: number;
  abstract readonly type: ErrorType;
  abstract readonly code: ErrorCode;
  /** Extra response headers, e.g. Retry-After. */
  headers: Record<string, string> = {};
}

export class ValidationError extends DomainError {
  readonly status = 400;
  readonly type = 'invalid_request_error';
  readonly code = 'validation_error';
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}

export class Unauthorized extends DomainError {
  readonly status = 401;
  readonly type = 'authentication_error';
  readonly code = 'unauthorized';
}

export class Forbidden extends DomainError {
  readonly status = 403;
  readonly type = 'permission_error';
  readonly code = 'forbidden';
}

export class NotFound extends DomainError {
  readonly status = 404;
  readonly type = 'not_found_error';
  readonly code = 'not_found';
}

export class Conflict extends DomainError {
  readonly status = 409;
  readonly type = 'conflict_error';
  readonly code = 'conflict';
}

export class PreconditionFailed extends DomainError {
  readonly status = 422;
  readonly type = 'precondition_error';
  readonly code: PreconditionCode;
  constructor(code: PreconditionCode, message: string) {
    super(message);
    this.code = code;
  }
}

export class PayloadTooLarge extends DomainError {
  readonly status = 413;
  readonly type = 'invalid_request_error';
  readonly code = 'payload_too_large';
}

export class RateLimited extends DomainError {
  readonly status = 429;
  readonly type = 'rate_limit_error';
  readonly code = 'rate_limit_exceeded';
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

/** The request line is longer than the server reads (the URL's own limit). */
export class UriTooLong extends DomainError {
  readonly status = 414;
  readonly type = 'invalid_request_error';
  readonly code = 'uri_too_long';
}

/** The request line and headers together exceed the server's header size limit. */
export class HeadersTooLarge extends DomainError {
  readonly status = 431;
  readonly type = 'invalid_request_error';
  readonly code = 'headers_too_large';
}

/** The client did not send a whole request in time. */
export class RequestTimeout extends DomainError {
  readonly status = 408;
  readonly type = 'invalid_request_error';
  readonly code = 'request_timeout';
}
