/**
 * `npm test`: unit and integration tests with Node's test runner. Integration tests need a
 * PostgreSQL server to create one fresh database per test file: TEST_DATABASE_URL when set
 * (CI uses the machine's server), otherwise an embedded cluster started here and stopped after.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbedded } from '../src/db/embedded.ts';

const args = process.argv.slice(2);
const files = args.length > 0 ? args : ['test/**/*.test.ts'];

let stop: (() => Promise<void>) | undefined;
let dataDir: string | undefined;
if (!process.env.TEST_DATABASE_URL) {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-service-test-'));
  fs.chmodSync(dataDir, 0o777);
  const embedded = await startEmbedded(dataDir, 'postgres');
  process.env.TEST_DATABASE_URL = embedded.url;
  stop = embedded.stop;
  console.log(`# no TEST_DATABASE_URL: using an embedded PostgreSQL in ${dataDir}`);
}

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', ...files], {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'test' },
});
const code: number = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
if (stop) await stop().catch(() => {});
if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(code);
