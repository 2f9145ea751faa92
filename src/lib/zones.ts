import { IANAZone } from 'luxon';

/** Each canonical IANA name by its lower case ("europe/kyiv" → "Europe/Kyiv"). */
let byLowerCase: Map<string, string> | undefined;

/**
 * Each value's answer (null: not a zone), kept: luxon builds an Intl formatter at every
 * isValidZone call (about 50 µs), and the answer never changes. GET /availability asks at every
 * request, a create with an attendee's zone at every create.
 */
const answers = new Map<string, string | null>();

/**
 * The one time-zone rule: an IANA name ("Europe/Berlin", "UTC", "US/Pacific"), in any case,
 * answered as written in the database ("europe/berlin" is "Europe/Berlin"; a name written right
 * comes back as sent, an alias is not replaced). Intl also takes UTC offsets ("+01:00"), which
 * are not names: undefined, as for anything else that is not a zone.
 */
export function zoneName(value: string): string | undefined {
  let known = answers.get(value);
  if (known === undefined) {
    known = lookUp(value) ?? null;
    if (answers.size < 10_000) answers.set(value, known);
  }
  return known ?? undefined;
}

function lookUp(value: string): string | undefined {
  if (!/^[A-Za-z]/.test(value) || !IANAZone.isValidZone(value)) return undefined;
  byLowerCase ??= new Map(Intl.supportedValuesOf('timeZone').map((name) => [name.toLowerCase(), name]));
  const listed = byLowerCase.get(value.toLowerCase());
  if (listed !== undefined) return listed;
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  return resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
}
