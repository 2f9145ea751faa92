const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Member (user) ids are UUIDs, in any letter case; a value that is not one names no member. */
export function isMemberId(value: string): boolean {
  return UUID.test(value);
}
