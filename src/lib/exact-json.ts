/**
 * JSON whose numbers come back as they were written. JSON.parse reads every number as a double,
 * so `12345678901234567890` becomes 12345678901234567000 and `1.0` becomes 1, and writing the
 * value again changes the text. Metadata is returned exactly as sent (decisions.md §8): a number
 * that a double would change is kept as its literal (`JSON.rawJSON`), which JSON.stringify and
 * Fastify's serializer write back verbatim. Every other number stays a plain number.
 */

/** The source text of a number, which JSON.stringify writes as it is. */
export interface RawJson {
  readonly rawJSON: string;
}

declare global {
  interface JSON {
    rawJSON(text: string): RawJson;
    isRawJSON(value: unknown): value is RawJson;
    parse(text: string, reviver: (this: unknown, key: string, value: unknown, context: { source?: string }) => unknown): unknown;
  }
}

/**
 * Text that may hold a number a double would change: 16 or more digits, the point between them
 * or not (beyond a double's 15 exact ones: `52.520008123456789`), an exponent, a fraction ending
 * in 0, six zeros after the point (written back as `1e-7`), or a minus zero. It is tested on the
 * whole text, strings included, so it may say yes when nothing would change; the reviver decides
 * each number exactly.
 */
const MAY_CHANGE = /\d(?:\.?\d){15}|\d[eE]|\.\d*0(?!\d)|\.0{6}|-0(?![.\d])/;

function keepLiteral(_key: string, value: unknown, context: { source?: string }): unknown {
  // Infinity (1e999) stays a number, so the checks that refuse it still see it.
  if (typeof value !== 'number' || !Number.isFinite(value) || context.source === undefined) return value;
  return String(value) === context.source ? value : JSON.rawJSON(context.source);
}

/** Whether `text` may hold a number that reading it as a double would change. */
export const mayChangeNumbers = (text: string): boolean => MAY_CHANGE.test(text);

/** JSON.parse with every number a double would change kept as its literal (slower: a reviver). */
export const parseKeepingLiterals = (text: string): unknown => JSON.parse(text, keepLiteral);

/** JSON.parse, keeping a number's literal wherever reading it as a double would change it. */
export function parseExact(text: string): unknown {
  return mayChangeNumbers(text) ? parseKeepingLiterals(text) : JSON.parse(text);
}

/** Whether `value` is a kept literal (a leaf, as a number is). */
export const isRawJson = (value: unknown): value is RawJson => JSON.isRawJSON(value);
