import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DATE_RULE, DATE_TIME_RULE } from '../lib/dates.ts';
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

/** Turns Ajv's JSON pointer into the field name a client sent, e.g. "attendee.email" or "custom_fields[0].type". */
function fieldOf(issue: AjvIssue): string {
  const segments = issue.instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const extra = issue.params.missingProperty ?? issue.params.additionalProperty;
  if (typeof extra === 'string') segments.push(extra);
  return segments.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

const CONTEXT: Record<string, string> = { querystring: 'query parameter', params: 'path parameter', headers: 'header' };

/** Ajv's wording for the keywords whose default message does not help a client. */
function detailOf(first: AjvIssue, issues: AjvIssue[]): string {
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
  return new ValidationError(`${where} "${name}" ${detailOf(first, issues)}`, name);
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
