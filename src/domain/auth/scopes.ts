export const SCOPES = [
  'bookings:create',
  'bookings:read',
  'bookings:write',
  'event-types:read',
  'event-types:write',
  'team:read',
  'team:members:read',
  'calendars:read',
  'webhooks:read',
  'webhooks:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Scopes a publishable (pk_) key may hold; every other scope is secret-only. */
export const PUBLISHABLE_SCOPES: ReadonlySet<Scope> = new Set(['bookings:create', 'event-types:read', 'team:read']);

/** A scope that grants another: webhooks:manage includes webhooks:read. */
const IMPLIES: Partial<Record<Scope, Scope[]>> = { 'webhooks:manage': ['webhooks:read'] };

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function expandScopes(scopes: readonly string[]): Set<Scope> {
  const out = new Set<Scope>();
  for (const s of scopes) {
    if (!isScope(s)) continue;
    out.add(s);
    for (const implied of IMPLIES[s] ?? []) out.add(implied);
  }
  return out;
}

export type { KeyKind, Mode } from '../vocabulary.ts';
import type { KeyKind, Mode } from '../vocabulary.ts';

const KEY_PATTERN = /^(pk|sk)_(live|test)_[A-Za-z0-9_-]{8,200}$/;

export function parseKey(key: string): { kind: KeyKind; mode: Mode } | undefined {
  const m = KEY_PATTERN.exec(key);
  if (!m) return undefined;
  return { kind: m[1] === 'pk' ? 'publishable' : 'secret', mode: m[2] as Mode };
}
