#!/usr/bin/env node
// The CLI is TypeScript run by Node's own type stripping; Node 24 is pinned through
// the `node` package for npm scripts, so an older system Node is refused clearly.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`booking-service needs Node.js 22.18+ (24 LTS recommended); this is ${process.version}. Run it through npm scripts or npx so the pinned Node 24 is used.`);
  process.exit(1);
}
await import('../src/cli.ts');
