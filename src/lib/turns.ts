import { performance } from 'node:perf_hooks';
import { setImmediate as giveWay } from 'node:timers/promises';

/**
 * `items.map(fn)` for CPU work on the process's one thread, which also answers the API: after
 * each item that ends `everyMs` or more after the last turn, it gives way to whatever waits
 * (requests, timers) before going on. A long list then delays a request by about one item's work,
 * not by the whole list's.
 */
export async function mapInTurns<T, R>(items: readonly T[], fn: (item: T) => R, everyMs = 10): Promise<R[]> {
  const out: R[] = [];
  let since = performance.now();
  for (const item of items) {
    out.push(fn(item));
    if (performance.now() - since >= everyMs) {
      await giveWay();
      since = performance.now();
    }
  }
  return out;
}
