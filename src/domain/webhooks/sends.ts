import type { Logger } from 'pino';

/**
 * The webhook sends in flight in one worker process. A job that makes attempts (an event's
 * fan-out, a retry) opens them, starts their sends here and ends: a receiver that answers slowly
 * holds no job slot, so routing, mail and other subscriptions' events never wait behind it.
 *
 * At most `max` sends are in flight, but for a fan-out's extra subscribers. A job waits for a
 * place *before* it opens its attempts, so a send starts as soon as its `pending` record is
 * committed, never minutes later: the sweeper judges an attempt by the time since it was opened
 * (sweep.ts). A fan-out's place covers its first subscriber; its other subscribers' sends start
 * with it, over the limit, rather than wait with their attempts open: at most 49 of them (the
 * webhooks an organization may have) for each of the at most 8 fan-outs that hold a place while
 * they open (`openingSlot`, deliver.ts), so the sends in flight stay under `max` + 392, and
 * under `max` when no organization has several subscriptions to one event.
 *
 * Nothing rests on this memory: each attempt's `pending` record names the pool that sends it
 * (`sent_by`). If the process dies mid-send, the sweeper makes the attempt again once that pool
 * is dead; if the outcome cannot be recorded (the database is away), once the record has been
 * pending for SENDER_TRUSTED_SECONDS.
 */
export interface Sends {
  /**
   * Waits for a place, opens attempts with `open`, then runs `send` for each without waiting for
   * it. Answers how many were opened.
   */
  openAndSend<T>(open: () => Promise<readonly T[]>, send: (attempt: T) => Promise<void>): Promise<number>;
  /**
   * Settles once every send started has finished and no job holds a place (a stopping worker
   * waits for it).
   */
  drain(): Promise<void>;
  /** Sends running and places held for attempts being opened. */
  readonly inFlight: number;
}

export function createSends(max: number, log: Logger): Sends {
  let taken = 0;
  const waiting: (() => void)[] = [];
  let idle: (() => void)[] = [];
  const free = () => {
    taken--;
    if (taken < max) waiting.shift()?.();
    if (taken === 0) {
      for (const done of idle) done();
      idle = [];
    }
  };
  const started = (send: () => Promise<void>): Promise<void> => {
    try {
      return send();
    } catch (err) {
      // a send that throws before its first await still gives its place back
      return Promise.reject(err);
    }
  };
  const run = (send: () => Promise<void>) => {
    void started(send)
      .catch((err: unknown) =>
        // sendOpenedAttempt records every outcome of the HTTP request itself; this is the record failing
        log.error(
          { err: err instanceof Error ? err.message : String(err) },
          'a webhook attempt was sent but its outcome not recorded; the sweeper makes it again within a minute',
        ),
      )
      .finally(free);
  };
  return {
    get inFlight() {
      return taken;
    },
    async openAndSend(open, send) {
      while (taken >= max) await new Promise<void>((resolve) => waiting.push(resolve));
      taken++;
      let opened: readonly Parameters<typeof send>[0][];
      try {
        opened = await open();
      } catch (err) {
        free();
        throw err;
      }
      if (opened.length === 0) {
        free();
        return 0;
      }
      taken += opened.length - 1;
      for (const attempt of opened) run(() => send(attempt));
      return opened.length;
    },
    async drain() {
      // the sends running and the places held by jobs still opening their attempts
      while (taken > 0) await new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
