import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, NotFound, PayloadTooLarge, ValidationError } from '../domain/errors.ts';

export interface ErrorBody {
  success: false;
  error: { type: string; code: string; message: string; field?: string; request_id?: string };
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns Ajv's JSON pointer into the field name a client sent, e.g. "attendee.email". */
function fieldOf(issue: AjvIssue): string {
  const pointer = issue.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  const extra = issue.params.missingProperty ?? issue.params.additionalProperty;
  if (typeof extra === 'string') return pointer ? `${pointer}.${extra}` : extra;
  return pointer;
}

function validationMessage(issues: AjvIssue[], context: string | undefined): ValidationError {
  const first = issues[0];
  const field = fieldOf(first);
  const where = context && context !== 'body' ? `${context} parameter` : 'field';
  let detail: string;
  if (first.keyword === 'required') detail = 'is required';
  else if (first.keyword === 'additionalProperties') detail = 'is not allowed';
  else detail = first.message ?? 'is invalid';
  const name = field || context || 'request';
  return new ValidationError(`${where} "${name}" ${detail}`, name);
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

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const known = toDomainError(err);
    if (known) return sendError(reply, known);
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
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new NotFound(`no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
