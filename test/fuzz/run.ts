/**
 * `npm run fuzz [-- --runs N --seed S]`: N hostile requests (default 200) for every operation of
 * the OpenAPI document against a fresh test app, then the counts by status per endpoint and
 * every violation (a 5xx, a 4xx outside the envelope or without X-Request-Id, a refused
 * request that wrote something). Exits 1 on any violation. Uses TEST_DATABASE_URL, or an
 * embedded PostgreSQL started here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbedded } from '../../src/db/embedded.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import { NOW } from '../http/bookings-helpers.ts';
import type { OperationReport } from './engine.ts';
import { formatReport, fuzzOperation, operationsOf, prepare } from './engine.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '200' }, seed: { type: 'string' } } });
const runs = Number(values.runs);
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 1_000_000;
if (!Number.isInteger(runs) || runs < 1 || !Number.isFinite(seed)) {
  console.error('usage: npm run fuzz -- [--runs N] [--seed S]');
  process.exit(2);
}

let stopEmbedded: (() => Promise<void>) | undefined;
let dataDir: string | undefined;
if (!process.env.TEST_DATABASE_URL) {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-service-fuzz-'));
  fs.chmodSync(dataDir, 0o777);
  const embedded = await startEmbedded(dataDir, 'postgres');
  process.env.TEST_DATABASE_URL = embedded.url;
  stopEmbedded = embedded.stop;
}

const t = await startApp({ now: NOW });
const reports: OperationReport[] = [];
const started = Date.now();
try {
  const ops = operationsOf((await t.request('GET', '/v1/openapi.json')).body);
  const ids = await prepare((method, p, body) => t.request(method, p, { key: KEYS.secret, body }));
  console.log(`fuzz: ${ops.length} operations × ${runs} cases, seed ${seed}`);
  for (const [i, op] of ops.entries()) reports.push(await fuzzOperation(t.url, t.db.pool, op, ids, runs, seed + i));
} finally {
  await t.close();
  if (stopEmbedded) await stopEmbedded().catch(() => {});
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}

const total = reports.reduce((n, r) => n + [...r.counts.values()].reduce((a, b) => a + b, 0), 0);
console.log(`\nstatus counts per endpoint (${total} requests in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
console.log(formatReport(reports));
const violations = reports.flatMap((r) => r.violations);
console.log(`\n${violations.length} violations`);
for (const v of violations.slice(0, 20)) {
  console.log(
    `- ${v.operation}: ${v.problem} (${v.status})\n  ${v.request.method} ${v.request.url.slice(0, 300)}\n` +
      `  body ${JSON.stringify(v.request.body?.slice(0, 300))}\n  → ${v.response.slice(0, 300)}`,
  );
}
process.exit(violations.length > 0 ? 1 : 0);
