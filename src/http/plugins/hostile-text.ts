import type { FastifyInstance } from 'fastify';
import { NotFound, ValidationError } from '../../domain/errors.ts';
import { isRawJson } from '../../lib/exact-json.ts';
import { badPercentEncoding } from '../errors.ts';

/**
 * Text PostgreSQL cannot store, refused once at the edge for every route (decisions.md §6):
 * a NUL character (U+0000) or an unpaired UTF-16 surrogate in any string or object key of
 * the path parameters, the query or the parsed JSON body. A path id is 404 (no resource can
 * have it); a query value or body field is 400 `validation_error` naming it. Without this,
 * PostgreSQL refuses such text deep inside a query and the client gets a 500.
 *
 * A body nested deeper than MAX_DEPTH levels is refused here too: every later step that walks
 * a body (the validator, JSON.stringify for storage and idempotency fingerprints, PostgreSQL's
 * jsonb) recurses, and a 256 KB body of brackets would overflow the stack.
 */
export const MAX_DEPTH = 32;

export interface TextProblem {
  /** The offending field as the client wrote it: `attendee.name`, `custom_fields.notes`, `items[2]`; '' for the whole value. */
  field: string;
  problem: string;
}

function textProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain a NUL character (U+0000)';
  if (!s.isWellFormed()) return 'must not contain an unpaired UTF-16 surrogate';
  return undefined;
}

/** A field's path as errors name it: `attendee.name`, `items[2]`. */
export const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/** The first string or key in `value` that cannot be stored, or a nesting too deep; walked without recursion. */
export function findTextProblem(value: unknown): TextProblem | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return { field: path, problem };
      continue;
    }
    // a number kept as written (metadata, src/lib/exact-json.ts) is a leaf like any number
    if (v === null || typeof v !== 'object' || isRawJson(v)) continue;
    if (depth >= MAX_DEPTH) return { field: path, problem: `must not be nested more than ${MAX_DEPTH} levels deep` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: join(path, i), depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      const problem = textProblem(key);
      // The key itself cannot be shown (it is the bad text): name where it is.
      if (problem) return { field: path, problem: `has a ${path ? 'key' : 'name'} that ${problem}` };
      stack.push({ value: (v as Record<string, unknown>)[key], path: join(path, key), depth: depth + 1 });
    }
  }
  return undefined;
}

/** Whether every "%" of `text` begins an escape, and the escapes spell UTF-8 (no lone surrogate either). */
function isPercentEncoded(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

export function installHostileText(app: FastifyInstance): void {
  // preValidation: after routing and body parsing, before the schema, the aliases and any handler.
  app.addHook('preValidation', async (request) => {
    // The query's parser keeps a bad escape as it came ("%FF"), where the router refuses one in
    // the path: the same bytes are refused in both (docs/edge.md).
    const query = request.url.indexOf('?');
    if (query >= 0 && request.url.includes('%', query) && !isPercentEncoded(request.url.slice(query + 1))) {
      throw badPercentEncoding('query');
    }
    const inPath = findTextProblem(request.params);
    if (inPath) throw new NotFound(`path parameter "${inPath.field}" ${inPath.problem}, so nothing has it`);
    // Where a name itself is the bad text, the problem is about the query string or the body as a whole.
    const inQuery = findTextProblem(request.query);
    if (inQuery) {
      const where = inQuery.field ? `query parameter "${inQuery.field}"` : 'a query parameter';
      throw new ValidationError(`${where} ${inQuery.problem}`, inQuery.field || 'query');
    }
    const inBody = findTextProblem(request.body);
    if (inBody)
      throw new ValidationError(`${inBody.field ? `field "${inBody.field}"` : 'a body field'} ${inBody.problem}`, inBody.field || 'body');
  });
}
