/**
 * `npm run bench`: runs every bench/*.bench.ts (or the ones named) one after another in its own
 * process, so one benchmark's heap and connections never colour the next one's numbers.
 * Benchmarks need PostgreSQL: BENCH_DATABASE_URL / TEST_DATABASE_URL, else an embedded cluster.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbedded } from '../src/db/embedded.ts';

const wanted = process.argv.slice(2);
const all = fs
  .readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const files = wanted.length ? all.filter((f) => wanted.some((w) => f.includes(w))) : all;

let stop: (() => Promise<void>) | undefined;
let dataDir: string | undefined;
if (!process.env.TEST_DATABASE_URL) {
  if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  else {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-service-bench-'));
    fs.chmodSync(dataDir, 0o777);
    const embedded = await startEmbedded(dataDir, 'postgres');
    process.env.TEST_DATABASE_URL = embedded.url;
    stop = embedded.stop;
  }
}

console.log(
  `# machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
);
let failed = 0;
for (const file of files) {
  console.log(`\n## ${file}`);
  const code: number = await new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join('bench', file)], { stdio: 'inherit', env: process.env });
    child.on('exit', (c) => resolve(c ?? 1));
  });
  if (code !== 0) failed++;
}
if (stop) await stop().catch(() => {});
if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
