#!/usr/bin/env node
// The CLI is TypeScript run by Node's own type stripping; Node 24 is pinned through
// the `node` package for npm scripts, so an older system Node is refused clearly.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { SERVICE_HEAP_FLAGS } from './heap-flags.js';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `booking-service needs Node.js 22.12+ (24 LTS recommended); this is ${process.version}. Run it through npm scripts or npx so the pinned Node 24 is used.`,
  );
  process.exit(1);
}

// The long-running commands get V8 heap limits sized for a service (SERVICE_HEAP_FLAGS). On a
// machine with gigabytes of memory V8's defaults let the young generation grow to 2 × 64 MB and
// the old one to up to four times what is live before collecting: `serve`, with about 60 MB
// live, sat at 500 MB RSS in the soak bench (bench/soak.bench.ts). With these it stays under
// 250 MB (docs/memory.md). process.execve replaces this process (same pid, same signals and
// stdio) before anything has started; a flag already given on the command line or in
// NODE_OPTIONS is left as given.
if (['serve', 'start', 'worker'].includes(process.argv[2]) && typeof process.execve === 'function') {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const missing = SERVICE_HEAP_FLAGS.filter((flag) => !given.some((g) => g.startsWith(flag.split('=')[0])));
  // glibc gives each thread that mallocs its own arena (up to 8 per core), and libuv's pool
  // threads and V8's helpers each keep one: two arenas took 17 MB off serve's RSS in the soak
  // (docs/memory.md). A value already set is left as given.
  const arenas = process.env.MALLOC_ARENA_MAX === undefined;
  if (missing.length > 0 || arenas) {
    process.execve(
      process.execPath,
      [process.execPath, ...missing, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
      arenas ? { ...process.env, MALLOC_ARENA_MAX: '2' } : process.env,
    );
  }
}

if (process.features.typescript || process.env.BOOKING_SERVICE_STRIP_TYPES === '1') {
  await import('../src/cli.ts');
} else {
  // Node 22.12 to 22.17 strips types only when asked: run the CLI again in a child with the
  // flag, passing signals on (serve stops gracefully on SIGTERM) and its exit status back.
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit', env: { ...process.env, BOOKING_SERVICE_STRIP_TYPES: '1' } },
  );
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    console.error(`booking-service: cannot start ${process.execPath}: ${err.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      // die of the same signal, as a shell expects; as PID 1 (which ignores it) exit 128 + n
      for (const s of signals) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 100);
      return;
    }
    process.exit(code ?? 1);
  });
}
