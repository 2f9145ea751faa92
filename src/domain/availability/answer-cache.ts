import { randomBytes } from 'node:crypto';
import type { FreeBusyCache } from './freebusy-cache.ts';

/**
 * Cached availability answers, kept correct by the FreeBusyCache's own invalidation: every host
 * has a token stored under its member id; an answer is stored under a key naming the tokens of
 * all its hosts. A booking change calls invalidate(memberIds), which deletes those members'
 * tokens, so every answer involving them becomes unreachable at once; tokens and answers also
 * expire with the cache's 60 s TTL.
 *
 * Order matters: tokens are taken BEFORE the database is read, so an invalidation that lands
 * while an answer is being computed deletes the token the answer will be stored under.
 */
const TOKEN_KEY = '#availability-token';

/**
 * A new token: this process's random prefix and a counter, unique across processes sharing a
 * Redis cache without asking the system for random bytes per host and request (with the cache
 * off, every request needs a token per host, and randomBytes was 6 % of such a request's CPU).
 */
const PROCESS_PREFIX = randomBytes(6).toString('base64url');
let issued = 0;
const newToken = () => `${PROCESS_PREFIX}${(++issued).toString(36)}`;

export async function hostTokens(cache: FreeBusyCache, memberIds: readonly string[]): Promise<string[]> {
  // all reads at once, then all the writes of new tokens at once: an async function per member
  // cost a generator and two promises each
  const found = await Promise.all(memberIds.map((id) => cache.get(id, TOKEN_KEY)));
  const writes: Promise<void>[] = [];
  const tokens = found.map((existing, i) => {
    if (typeof existing === 'string') return existing;
    const token = newToken();
    writes.push(cache.set(memberIds[i], TOKEN_KEY, token));
    return token;
  });
  await Promise.all(writes);
  return tokens;
}

/**
 * The shape of the answers cached under answerKey (get-availability.ts's Answer), written into
 * the key: processes of two releases sharing a Redis cache (a rolling deploy) never read each
 * other's answers. 2: the slots' starts alone (the key without a shape also held each slot's
 * JSON, which a process of that release needs).
 */
const ANSWER_SHAPE = 2;

export function answerKey(parts: readonly (string | number)[], tokens: readonly string[]): string {
  return `availability|${ANSWER_SHAPE}|${parts.join('|')}|${tokens.join('.')}`;
}

/** The keys of hosts' own slot starts (get-availability.ts): the answer's parts, each host's token. */
export function hostKeys(parts: readonly (string | number)[], tokens: readonly string[]): string[] {
  const prefix = `availability-host|${parts.join('|')}|`;
  return tokens.map((token) => prefix + token);
}
