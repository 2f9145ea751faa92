import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DATE_RULE, DATE_TIME_RULE } from '../lib/dates.ts';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError, HeadersTooLarge, NotFound, PayloadTooLarge, RequestTimeout, UriTooLong, ValidationError } from '../domain/errors.ts';

export interface ErrorBody {
  success: false;
  error: { type: string; code: string; message: string; field?: string; request_id?: string };
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** Set when the issue is about an object's key (JSON Schema `propertyNames`). */
  propertyName?: string;
  /** The schema holding the keyword (src/http/plugins/validation.ts keeps it). */
  parentSchema?: { 'x-error-messages'?: Record<string, string> };
}

/** Turns Ajv's JSON pointer into the field name a client sent, e.g. "attendee.email" or "custom_fields[0].type". */
function fieldOf(issue: AjvIssue): string {
  const segments = issue.instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const extra = issue.params.missingProperty ?? issue.params.additionalProperty;
  if (typeof extra === 'string') segments.push(extra);
  return segments.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

const CONTEXT: Record<string, string> = { querystring: 'query parameter', params: 'path parameter', headers: 'header' };

/** Ajv's wording for the keywords whose default message does not help a client. */
function detailOf(first: AjvIssue, issues: AjvIssue[]): string {
  // a schema's own wording for this keyword, e.g. PATCH /bookings/{id}'s "cannot be changed: ..."
  const worded = first.parentSchema?.['x-error-messages']?.[first.keyword];
  if (worded) return worded;
  if (first.keyword === 'required') return 'is required';
  if (first.keyword === 'type' && first.instancePath === '' && !first.params.missingProperty) return `must be a JSON ${first.params.type}`;
  if (first.keyword === 'additionalProperties') return 'is not allowed';
  if (first.keyword === 'const' || first.keyword === 'enum') {
    // An enum is a union of literals: every branch reports its constant at the same place.
    const allowed = issues
      .filter((i) => i.instancePath === first.instancePath && (i.keyword === 'const' || i.keyword === 'enum'))
      .flatMap((i) => (i.keyword === 'const' ? [i.params.allowedValue] : ((i.params.allowedValues as unknown[]) ?? [])));
    return `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (first.keyword === 'format' && first.params.format === 'date') return `must be ${DATE_RULE}`;
  if (first.keyword === 'format' && first.params.format === 'date-time') return `must be ${DATE_TIME_RULE}`;
  if (first.keyword === 'format' && first.params.format === 'uuid') return 'must be a UUID';
  return first.message ?? 'is invalid';
}

function validationMessage(issues: AjvIssue[], context: string | undefined): ValidationError {
  const first = issues[0];
  const field = fieldOf(first);
  const where = context && context !== 'body' ? (CONTEXT[context] ?? `${context} parameter`) : 'field';
  const name = field || context || 'request';
  const key = first.propertyName === undefined ? '' : ` key "${first.propertyName.slice(0, 60)}"`;
  return new ValidationError(`${where} "${name}"${key} ${detailOf(first, issues)}`, name);
}

/** Maps any thrown error to the spec's envelope; the only place that does so. */
export function toDomainError(err: unknown): DomainError | undefined {
  if (err instanceof DomainError) return err;
  const e = err as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (e && Array.isArray(e.validation) && e.validation.length > 0) return validationMessage(e.validation, e.validationContext);
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLarge('request body exceeds the 256 KB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ValidationError('Content-Type must be application/json', 'Content-Type');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ValidationError('body is empty but Content-Type is application/json', 'body');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ValidationError('Content-Length does not match the body', 'body');
    default:
      break;
  }
  if (e instanceof SyntaxError || e?.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ValidationError('body is not valid JSON', 'body');
  }
  if (typeof e?.statusCode === 'number' && e.statusCode === 413) return new PayloadTooLarge('request body exceeds the 256 KB limit');
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ValidationError(e.message || 'bad request');
  }
  return undefined;
}

export function errorBody(err: DomainError): ErrorBody {
  const body: ErrorBody = { success: false, error: { type: err.type, code: err.code, message: err.message } };
  if (err instanceof ValidationError && err.field) body.error.field = err.field;
  return body;
}

export function sendError(reply: FastifyReply, err: DomainError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  return reply.code(err.status).send(errorBody(err));
}

function sendInternalError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  request.log.error({ err }, 'unexpected error');
  return reply.code(500).send({
    success: false,
    error: {
      type: 'api_error',
      code: 'internal_error',
      message: `An unexpected error occurred; quote request id ${request.id} when reporting it`,
      request_id: request.id,
    },
  });
}

/** A URL whose path or query is not valid percent-encoded UTF-8: the same 400 for either (docs/edge.md). */
export function badPercentEncoding(part: 'path' | 'query'): ValidationError {
  return new ValidationError(`the URL ${part} is not valid: "%" must begin a percent-encoded UTF-8 sequence such as %20`, 'url');
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any hook runs, so the request-id
 * hook has not set the header either. A path that is not valid percent-encoded UTF-8
 * (`/v1/bookings/%FF`, `%`, `%2`) is 400; a path parameter over the router's 500 characters
 * names nothing that can exist, so 404.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', request.id);
  reply.header('Vary', 'Origin'); // as installRequestId sets on every other answer

  if (err.code === 'FST_ERR_BAD_URL') {
    sendError(reply, badPercentEncoding('path'));
  } else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendError(reply, new NotFound('a path parameter is over 500 characters long, so nothing has it'));
  } else {
    sendInternalError(request, reply, err);
  }
}

/** What Node's `clientError` event carries: `rawPacket` is the data the parser was reading. */
interface ClientError extends Error {
  code?: string;
  rawPacket?: unknown;
}

/** The messages of the HTTP parser's refusals, by status: also the OpenAPI document's examples. */
export const PARSER_MESSAGES = {
  408: 'the request was not received in time',
  414: 'the URL is too long: the request line and headers may be at most 16 KB',
  431: 'the request headers are too large: the request line and headers may be at most 16 KB',
} as const;

/** The HTTP parser's error as one of ours: too long a request line, too large headers, too slow, or malformed. */
function clientErrorOf(err: ClientError): DomainError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RequestTimeout(PARSER_MESSAGES[408]);
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // Node counts the request line as part of the 16 KB of headers; when no line ends in what it
    // read, the URL alone is too long.
    const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : undefined;
    const firstLineEnds = raw ? raw.indexOf('\r\n') : -1;
    if (raw && (firstLineEnds < 0 || firstLineEnds > raw.length / 2)) {
      return new UriTooLong(PARSER_MESSAGES[414]);
    }
    return new HeadersTooLarge(PARSER_MESSAGES[431]);
  }
  return new ValidationError('malformed HTTP request', 'request');
}

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the request, so there is no request
 * object and no reply; the answer is written on the socket, in the envelope, with a fresh
 * X-Request-Id (the client's header was not read), and the connection closed.
 */
export function clientErrorHandler(err: ClientError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = clientErrorOf(err);
  const id = randomUUID();
  if (socket.writable) {
    const body = JSON.stringify({ ...errorBody(known), error: { ...errorBody(known).error, request_id: id } });
    socket.write(
      `HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const known = toDomainError(err);
    if (known) return sendError(reply, known);
    return sendInternalError(request, reply, err);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, new NotFound(`no route ${request.method} ${request.url.split('?')[0]}`)));
}
