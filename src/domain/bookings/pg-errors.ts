import { isStalePlan } from '../../db/pool.ts';
import { Conflict } from '../errors.ts';

export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export const isUniqueViolation = (err: unknown) => sqlState(err) === '23505';
/**
 * Deadlock, serialization failure, or a prepared statement gone stale under a migration (its
 * connection was dropped): nothing was written, the whole transaction may be retried.
 */
const isRetryable = (err: unknown) => sqlState(err) === '40P01' || sqlState(err) === '40001' || isStalePlan(err);
/** Another change held the booking's lock past lock_timeout. */
const isLockTimeout = (err: unknown) => sqlState(err) === '55P03';

/**
 * Runs a transaction (or a create, which reads its slot again), retrying it on deadlock or
 * serialization failure (hold_members refusing a candidate whose zone changed); a lock wait
 * that timed out, or failures that outlast the retries, are the spec's "concurrent
 * modification" (409).
 */
export async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  const attempts = 3;
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (isRetryable(err) && i < attempts) continue;
      if (isRetryable(err) || isLockTimeout(err)) {
        throw new Conflict('the booking is being changed by another request; retry');
      }
      throw err;
    }
  }
}
