/**
 * Real components a test needs (Redis, Radicale, Chromium): on a developer's machine without
 * one, its tests are skipped with a line saying why; in CI (CI=true, where .ci/run installs
 * every component) a missing one fails the run instead, so CI never skips them.
 */
export function skipBecause(reason: string): string {
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error(`${reason}; CI installs every component the tests need, so this is a failure there`);
  }
  console.log(`# skipped: ${reason}`);
  return reason;
}
