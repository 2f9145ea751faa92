interface Waiting<K, V> {
  key: K;
  resolve: (value: V) => void;
  reject: (err: unknown) => void;
}

/**
 * Batches calls the way a database batches commits: while a batch is running, new calls wait
 * and go together into the next one (at most `maxBatch` keys; the rest wait for the one after);
 * otherwise a call starts a batch at the next turn of the event loop (with whatever else
 * arrived in that turn). So jobs of a task
 * whose work shares statements (routing) cost a share of one transaction each under load, and
 * a lone job waits for nothing. When a batch fails, each of its keys is run again on its own,
 * one after another, so one bad key fails only its own job (which graphile-worker retries),
 * never its neighbours'.
 */
export function coalesce<K, V>(run: (keys: K[]) => Promise<Map<K, V>>, maxBatch = Infinity): (key: K) => Promise<V> {
  const pending: Waiting<K, V>[] = [];
  let running = false;
  let scheduled = false;

  const settle = async (batch: Waiting<K, V>[]): Promise<void> => {
    let answers: Map<K, V>;
    try {
      answers = await run(batch.map((w) => w.key));
    } catch (err) {
      if (batch.length === 1) batch[0].reject(err);
      // one after another: a failing batch often means a struggling database
      else for (const w of batch) await settle([w]);
      return;
    }
    for (const w of batch) {
      if (answers.has(w.key)) w.resolve(answers.get(w.key)!);
      else w.reject(new Error(`coalesce: no answer for ${String(w.key)}`));
    }
  };

  const startNext = (): void => {
    scheduled = false;
    if (pending.length === 0 || running) return;
    const batch = pending.splice(0, maxBatch);
    running = true;
    void settle(batch).finally(() => {
      running = false;
      startNext();
    });
  };

  return (key) =>
    new Promise<V>((resolve, reject) => {
      pending.push({ key, resolve, reject });
      if (!scheduled && !running) {
        scheduled = true;
        setImmediate(startNext);
      }
    });
}
