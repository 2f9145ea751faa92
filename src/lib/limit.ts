/**
 * At most `n` of the calls made through the returned function run at once; the others wait,
 * first come first served. For statements that slow each other down when many run together
 * (see `openingSlot` in src/domain/webhooks/deliver.ts).
 */
export function limit(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      // the slot passes straight to the next caller, so none can jump the queue meanwhile
      if (next) next();
      else running--;
    }
  };
}
