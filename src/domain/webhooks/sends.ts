import type { Logger } from 'pino';

/**
 * The webhook sends in flight in one worker process. A job that makes attempts (an event's
 * fan-out, a retry) starts each send here and ends: a receiver that answers slowly holds no job
 * slot, so routing, mail and other subscriptions' events never wait behind it. At most `max`
 * sends are in flight; a job that would start one more waits for a place, and holds its slot
 * only while it waits.
 *
 * Nothing rests on this memory: each attempt's `pending` record is committed before its send
 * starts and names the pool that sends it (`sent_by`). If the process dies mid-send, the sweeper
 * (sweep.ts) makes the attempt again once that pool is dead; if the outcome cannot be recorded
 * (the database is away), once the record has been pending for SENDER_TRUSTED_SECONDS.
 */
export interface Sends {
  /** Waits for a place, then runs `send` without waiting for it. */
  start(send: () => Promise<void>): Promise<void>;
  /** Settles once every send started has finished (a stopping worker waits for it). */
  drain(): Promise<void>;
  readonly inFlight: number;
}

export function createSends(max: number, log: Logger): Sends {
  const running = new Set<Promise<void>>();
  const waiting: (() => void)[] = [];
  return {
    get inFlight() {
      return running.size;
    },
    async start(send) {
      while (running.size >= max) await new Promise<void>((resolve) => waiting.push(resolve));
      const sending: Promise<void> = send()
        .catch((err: unknown) =>
          // sendOpenedAttempt records every outcome of the HTTP request itself; this is the record failing
          log.error(
            { err: (err as Error).message },
            'a webhook attempt was sent but its outcome not recorded; the sweeper makes it again within a minute',
          ),
        )
        .finally(() => {
          running.delete(sending);
          waiting.shift()?.();
        });
      running.add(sending);
    },
    async drain() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
