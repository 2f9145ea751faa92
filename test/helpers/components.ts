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

/** Debian's Chromium (never a downloaded browser), driven by playwright-core. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Its flags on these machines: headless as root, and without the background ones it calls
 * Google's services, refused by the closed network many at a time.
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
