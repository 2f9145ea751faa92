import { Ajv } from 'ajv';
import type { Options } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../../domain/errors.ts';
import { parseDate, parseDateTime } from '../../lib/dates.ts';

// ajv-formats is CommonJS; under Node's ESM its plugin is the module itself or its default.
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (ajv: Ajv) => Ajv;

function compiler(coerceTypes: Options['coerceTypes']): Ajv {
  // allErrors stays off: with it on, a crafted body can make validation very slow.
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, addUsedSchema: false, allErrors: false, strict: false });
  addFormats(ajv);
  // The one date parser of src/lib/dates.ts, so a schema refuses exactly what the domain refuses
  // (ajv-formats' own date-time takes a space for the T and a leap second).
  ajv.addFormat('date', { type: 'string', validate: (s: string) => parseDate(s) !== undefined });
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => parseDateTime(s) !== undefined });
  return ajv;
}

/**
 * Query strings, path parameters and headers arrive as text, so they are coerced to the
 * schema's types ("limit=10" is 10). A JSON body already carries types: a "20" where an
 * integer is due, a 123 where a string is due or a "false" where a boolean is due is a 400,
 * and null is never turned into "" or 0 (Fastify's default coerces bodies too).
 */
export function installValidation(app: FastifyInstance): void {
  const text = compiler('array');
  const json = compiler(false);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? json : text).compile(schema));
}

/**
 * Bodies are JSON. An empty body means "no body" whatever its Content-Type: clients that always
 * send `Content-Type: application/json` send it on bodyless DELETEs and POSTs too, fetch labels
 * an empty string text/plain and curl -d '' labels it a form. A route that needs a body still
 * answers 400 through its schema. A non-empty body of another Content-Type is 400.
 */
export function installBodyParsers(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'ignore'); // Fastify's own defaults
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    return json(req, String(body), done);
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    return done(new ValidationError('Content-Type must be application/json', 'Content-Type'), undefined);
  });
}
