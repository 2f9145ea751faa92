/**
 * The one parser of dates and date-times a client sends, in a query string or a body
 * (decisions.md §6: an impossible date is 400 wherever one is accepted). JavaScript's own
 * Date.parse is not used on input: it rolls 2026-11-31 over into December 1 and accepts
 * many shapes that are not ISO 8601. The schema validator's `date` and `date-time` formats
 * call these functions too, so a schema and a domain rule never disagree.
 */

/** A calendar date: `2026-12-01`. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A date-time with an offset (RFC 3339, seconds optional): `2026-12-01T09:00:00Z`, `2026-12-01T10:00+01:00`. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/i;

export const DATE_RULE = 'a calendar date YYYY-MM-DD, years 0001 to 9998';
export const DATE_TIME_RULE = 'an ISO 8601 date-time with an offset, such as 2026-12-01T09:00:00Z, years 0001 to 9998 in UTC';

/**
 * The instants a client may name: years 0001 to 9998 in UTC. The service computes days around
 * every time it is given (a slot's local days, its buffers, the day after an availability
 * range), and an instant past 9999 or before year 1 has no ISO 8601 form PostgreSQL reads
 * back ("+010000-01-01"): a year of margin keeps every such window writable.
 */
const FIRST = Date.parse('0001-01-01T00:00:00Z');
const END = Date.parse('9999-01-01T00:00:00Z'); // excluded

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Milliseconds of the UTC midnight of a real date; setUTCFullYear, unlike Date.UTC, keeps years below 100. */
function midnight(y: string, m: string, d: string): number | undefined {
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return within(date.getTime());
}

/** `YYYY-MM-DD` as the milliseconds of its midnight UTC, or undefined when it is not a real date. */
export function parseDate(value: string): number | undefined {
  const m = DATE.exec(value);
  return m ? midnight(m[1], m[2], m[3]) : undefined;
}

/** An ISO 8601 date-time with an offset as epoch milliseconds, or undefined when malformed or impossible. */
export function parseDateTime(value: string): number | undefined {
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const day = midnight(m[1], m[2], m[3]);
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (day === undefined || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (!m[8]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return within(day + ((hour * 60 + minute - offset) * 60 + second) * 1000 + millis);
}

function within(instant: number): number | undefined {
  return instant >= FIRST && instant < END ? instant : undefined;
}

/** A date-time, or a calendar date meaning its midnight UTC (the booking list's filters). */
export function parseDateOrDateTime(value: string): number | undefined {
  return DATE.test(value) ? parseDate(value) : parseDateTime(value);
}
