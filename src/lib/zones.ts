import { IANAZone } from 'luxon';

/** Each canonical IANA name by its lower case ("europe/kyiv" → "Europe/Kyiv"). */
let byLowerCase: Map<string, string> | undefined;

/**
 * The one time-zone rule: an IANA name ("Europe/Berlin", "UTC", "US/Pacific"), in any case,
 * answered as written in the database ("europe/berlin" is "Europe/Berlin"; a name written right
 * comes back as sent, an alias is not replaced). Intl also takes UTC offsets ("+01:00"), which
 * are not names: undefined, as for anything else that is not a zone.
 */
export function zoneName(value: string): string | undefined {
  if (!/^[A-Za-z]/.test(value) || !IANAZone.isValidZone(value)) return undefined;
  byLowerCase ??= new Map(Intl.supportedValuesOf('timeZone').map((name) => [name.toLowerCase(), name]));
  const listed = byLowerCase.get(value.toLowerCase());
  if (listed !== undefined) return listed;
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  return resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
}
