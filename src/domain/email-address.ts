/**
 * The one email rule: attendee.email (create, PATCH), the list's attendee_email filter, EMAIL
 * custom fields, seeded members and MAIL_FROM. local@domain.tld: a local part of up to 64
 * characters without spaces, quotes, brackets, invisible format characters (bidi overrides,
 * zero-width) or a dot at either end or twice in a row; a domain of dot-separated labels of
 * letters, digits and inner hyphens, the last one letters (or an xn-- label). Letters may be
 * any script's (internationalized addresses). IP literals ("a@[127.0.0.1]") and quoted local
 * parts are refused: no mail server we send through takes them from a booking form.
 */
const ATOM = String.raw`[^\s\p{Cc}\p{Cf}\p{Z}@."(),:;<>\[\]\\]+`;
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?`;
const TOP = String.raw`(?:\p{L}{2,63}|xn--[a-z0-9-]{1,59})`;
const EMAIL = new RegExp(String.raw`^(?=[^@]{1,64}@)${ATOM}(?:\.${ATOM})*@(?:${LABEL}\.)+${TOP}$`, 'iu');

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}
