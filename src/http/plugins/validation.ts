import { Ajv } from 'ajv';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { isEmailAddress } from '../../domain/email-address.ts';
import { ValidationError } from '../../domain/errors.ts';
import { parseDate, parseDateTime } from '../../lib/dates.ts';
import { mayChangeNumbers, parseKeepingLiterals } from '../../lib/exact-json.ts';
import { join } from './hostile-text.ts';
import { COMPONENTS } from '../schemas/components.ts';

// ajv-formats is CommonJS; under Node's ESM its plugin is the module itself or its default.
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (ajv: Ajv) => Ajv;

function compiler(coerceTypes: Options['coerceTypes']): Ajv {
  // allErrors stays off: with it on, a crafted body can make validation very slow. verbose puts
  // each error's schema beside it, for its `x-error-messages` (see clearErrors).
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    addUsedSchema: false,
    allErrors: false,
    strict: false,
    verbose: true,
  });
  addFormats(ajv);
  // The one date parser of src/lib/dates.ts, so a schema refuses exactly what the domain refuses
  // (ajv-formats' own date-time takes a space for the T and a leap second).
  ajv.addFormat('date', { type: 'string', validate: (s: string) => parseDate(s) !== undefined });
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => parseDateTime(s) !== undefined });
  // and the one email rule, so the list's attendee_email filter takes every address a booking may have
  ajv.addFormat('email', { type: 'string', validate: isEmailAddress });
  // the named schemas that route schemas $ref (src/http/schemas/components.ts)
  for (const schema of COMPONENTS) ajv.addSchema(schema);
  return ajv;
}

/**
 * Ajv reports the first problem it meets, and it checks `required` before
 * `additionalProperties`: `{"start_time": ...}` sent to PATCH /bookings/{id} would be told that
 * `attendee` is missing, when its mistake is the field it sent. So a field the schema does not
 * allow is reported before a missing one. The error keeps its schema (`parentSchema`, where
 * `x-error-messages` words a keyword's message for that schema: src/http/errors.ts) but not the
 * data, so that no body ends up in a log.
 */
function clearErrors(validate: ValidateFunction): ValidateFunction {
  const check = ((data: unknown) => {
    const valid = validate(data);
    check.errors = valid ? null : (validate.errors ?? []).map(disallowedFirst).map(({ data: _d, schema: _s, ...issue }) => issue);
    return valid;
  }) as ValidateFunction;
  return check;
}

function disallowedFirst(issue: ErrorObject): ErrorObject {
  const schema = issue.parentSchema as { additionalProperties?: unknown; properties?: Record<string, unknown> } | undefined;
  if (issue.keyword !== 'required' || schema?.additionalProperties !== false || !issue.data || typeof issue.data !== 'object') return issue;
  const extra = Object.keys(issue.data).find((key) => !Object.hasOwn(schema.properties ?? {}, key));
  if (extra === undefined) return issue;
  return {
    ...issue,
    keyword: 'additionalProperties',
    params: { additionalProperty: extra },
    message: 'must NOT have additional properties',
  };
}

/** A number as a query string writes it: decimal digits, a sign only for a negative, no spaces. */
const TEXT_NUMBER: Record<string, RegExp> = {
  integer: /^-?(?:0|[1-9][0-9]*)$/,
  number: /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/,
};

/**
 * Ajv coerces a string to a number when `data == +data`, so "0x0A", "0b11", " 10", "+10",
 * "1e1" and "10.0" would all pass as integers. The text parts' numeric properties are checked
 * as written first; one that is not is refused as Ajv refuses "abc" (keyword `type`).
 */
function plainNumbers(schema: unknown, validate: ValidateFunction): ValidateFunction {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const numeric = Object.entries(properties).flatMap(([key, property]) => {
    const pattern = typeof property.type === 'string' ? TEXT_NUMBER[property.type] : undefined;
    return pattern ? [{ key, property, pattern, type: property.type as string }] : [];
  });
  if (numeric.length === 0) return validate;
  const check = ((data: unknown) => {
    const values = (data ?? {}) as Record<string, unknown>;
    const bad = numeric.find(({ key, pattern }) => typeof values[key] === 'string' && !pattern.test(values[key]));
    if (bad === undefined) {
      const valid = validate(data);
      check.errors = validate.errors;
      return valid;
    }
    const issue: ErrorObject = {
      instancePath: `/${bad.key}`,
      schemaPath: `#/properties/${bad.key}/type`,
      keyword: 'type',
      params: { type: bad.type },
      message: `must be ${bad.type}`,
      parentSchema: bad.property as ErrorObject['parentSchema'],
    };
    check.errors = [issue];
    return false;
  }) as ValidateFunction;
  return check;
}

/**
 * Query strings, path parameters and headers arrive as text, so they are coerced to the
 * schema's types ("limit=10" is 10), a number only as decimal digits (plainNumbers). A JSON
 * body already carries types: a "20" where an integer is due, a 123 where a string is due or
 * a "false" where a boolean is due is a 400, and null is never turned into "" or 0 (Fastify's
 * default coerces bodies too).
 */
export function installValidation(app: FastifyInstance): void {
  const text = compiler('array');
  const json = compiler(false);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? clearErrors(json.compile(schema)) : plainNumbers(schema, clearErrors(text.compile(schema))),
  );
}

/**
 * A body's bytes as text, refusing what is not UTF-8 (RFC 8259 §8.1) instead of replacing it with
 * U+FFFD: bytes ED A0 80 (a surrogate written as UTF-8) would otherwise be stored as three
 * replacement characters, where the same text escaped (`\ud800`) is a 400 (decisions.md §6).
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Fastify's parser refuses a `__proto__` key (secure-json-parse) as if the JSON were broken. The
 * JSON is fine, and the client needs to know which key: a 400 naming the object that holds it
 * (`metadata`), or undefined when the body has none (the error was another).
 */
function forbiddenKey(text: string): ValidationError | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text); // an own "__proto__" property, never a prototype
  } catch {
    return undefined;
  }
  const stack: Array<{ value: unknown; path: string }> = [{ value: parsed, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Object.hasOwn(value, '__proto__')) {
      return new ValidationError(`${path ? `field "${path}"` : 'the body'} has a key "__proto__", which is not allowed`, path || 'body');
    }
    if (Array.isArray(value)) value.forEach((child, i) => stack.push({ value: child, path: join(path, i) }));
    else for (const [key, child] of Object.entries(value)) stack.push({ value: child, path: join(path, key) });
  }
  return undefined;
}

/**
 * A booking's metadata is returned exactly as sent (decisions.md §8): where the body's text may
 * hold a number a double would change (`12345678901234567890`, `1.0`), the metadata is read again
 * keeping those numbers' literals (src/lib/exact-json.ts). Every other field keeps plain numbers,
 * which is what its schema checks.
 */
function withExactMetadata(text: string, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const metadata = (body as Record<string, unknown>).metadata;
  if (metadata === null || typeof metadata !== 'object' || !mayChangeNumbers(text)) return body;
  try {
    (body as Record<string, unknown>).metadata = (parseKeepingLiterals(text) as Record<string, unknown>).metadata;
  } catch {
    // a reviver recurses: a body nested thousands of levels deep overflows it. Such a body is
    // refused for its depth (hostile-text.ts), naming the field, as without the literal.
  }
  return body;
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
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      return done(new ValidationError('body is not valid UTF-8', 'body'), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    return json(req, text, (err, value) => (err ? done(forbiddenKey(text) ?? err, undefined) : done(null, withExactMetadata(text, value))));
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    return done(new ValidationError('Content-Type must be application/json', 'Content-Type'), undefined);
  });
}
