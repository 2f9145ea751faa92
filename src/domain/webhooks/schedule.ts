/**
 * WEBHOOK_RETRY_SCHEDULE (default 1, 5, 25, 125, 625 s): its length is the number of attempts;
 * the first attempt is made at once and entry k is the wait after failed attempt k. The spec
 * promises both "5 attempts" and five delays; the first attempt cannot wait a second without
 * breaking the commit-to-delivery latency promise, so the last delay is never waited.
 */
export function maxAttempts(schedule: readonly number[]): number {
  return Math.max(1, schedule.length);
}

/**
 * When attempt `position + 1` should run after attempt `position` failed at `now`, or null when
 * there is none. Jitter of ±10% spreads retries of many events that failed together.
 */
export function nextAttemptAt(schedule: readonly number[], position: number, now: Date, random: () => number = Math.random): Date | null {
  if (position >= maxAttempts(schedule)) return null;
  const base = schedule[position - 1] ?? 0;
  const jittered = base * (0.9 + 0.2 * random());
  return new Date(now.getTime() + Math.round(jittered * 1000));
}
