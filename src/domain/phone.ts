/**
 * The one phone rule: attendee.phone, PHONE custom fields and the form GET
 * /event-types/{id}/fields describes. "+44 20 7946 0958", "(555) 123-4567", "555.123.4567": an
 * optional +, then 6 to 20 of digits, spaces, dashes, dots and parentheses, at least 6 of them
 * digits.
 */
export const PHONE_PATTERN = '^\\+?[0-9(][0-9 ().-]{5,19}$';
export const PHONE_RULE = 'phone number: optional +, then 6 to 20 digits, spaces, dashes, dots or parentheses, at least 6 of them digits';

const PHONE = new RegExp(PHONE_PATTERN);
const MIN_DIGITS = 6;

export function isPhone(value: string): boolean {
  return PHONE.test(value) && value.replace(/\D/g, '').length >= MIN_DIGITS;
}
