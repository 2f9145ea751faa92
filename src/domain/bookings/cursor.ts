import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../errors.ts';

/**
 * The list cursor is opaque: a keyset position (created_at with microseconds, id) and a
 * checksum, so a forged or damaged cursor is a 400 instead of a silent wrong page. The key is
 * not a secret (the cursor grants nothing: every list is filtered by the caller's organization
 * and mode); it only makes a hand-edited cursor invalid.
 */
const KEY = 'booking-list-cursor-v1';
const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export interface Position {
  createdAt: string;
  id: string;
}

function mac(payload: string): Buffer {
  return createHmac('sha256', KEY).update(payload).digest().subarray(0, 12);
}

export function encodeCursor(p: Position): string {
  const payload = Buffer.from(JSON.stringify([p.createdAt, p.id])).toString('base64url');
  return `${payload}.${mac(payload).toString('base64url')}`;
}

export function decodeCursor(cursor: string): Position {
  const bad = () => new ValidationError('query parameter "cursor" is not a cursor this API returned', 'cursor');
  const [payload, sig, extra] = cursor.split('.');
  if (!payload || !sig || extra !== undefined) throw bad();
  const given = Buffer.from(sig, 'base64url');
  const expected = mac(payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    typeof parsed[1] !== 'string' ||
    !AT.test(parsed[0])
  ) {
    throw bad();
  }
  return { createdAt: parsed[0], id: parsed[1] };
}
