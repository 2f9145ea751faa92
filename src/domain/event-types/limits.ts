/**
 * Bounds of every event-type number and string the API accepts (documented in
 * docs/scheduling.md). The request schemas are built from these, so a value outside them is a
 * 400 naming the field. Minutes throughout.
 */
export const EVENT_TYPE_LIMITS = {
  duration: { minimum: 1, maximum: 1440 },
  slot_interval: { minimum: 5, maximum: 1440 },
  buffer_before: { minimum: 0, maximum: 1440 },
  buffer_after: { minimum: 0, maximum: 1440 },
  /** one year */
  minimum_booking_notice: { minimum: 0, maximum: 525_600 },
  workload: { maximum: 100_000 },
  nameLength: 200,
  slugLength: 200,
  descriptionLength: 5000,
  externalIdLength: 255,
  hosts: 100,
  customFields: 50,
  customFieldKeyLength: 100,
  customFieldLabelLength: 200,
  customFieldOptions: 100,
  customFieldOptionLength: 200,
} as const;

export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
export const CUSTOM_FIELD_KEY_PATTERN = '^[A-Za-z0-9_-]+$';

/** A URL slug from a name: lower case ASCII letters and digits joined by single dashes. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, EVENT_TYPE_LIMITS.slugLength - 10)
    .replace(/-+$/g, '');
  return slug || 'event-type';
}
