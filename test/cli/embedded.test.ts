import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startCli } from '../helpers/cli.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bs-embedded-'));
fs.chmodSync(dataDir, 0o777);
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function startOnce(label: string) {
  const port = await freePort();
  const t0 = Date.now();
  // no DATABASE_URL: the embedded default, exactly as `npm start` runs it
  const proc = startCli(['start'], { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' }, /booking service ready/, 180_000);
  const output = await proc.started;
  const ms = Date.now() - t0;
  console.log(`# ${label} start took ${ms} ms`);
  return { proc, output, port, ms };
}

describe('npm start on the embedded PostgreSQL', () => {
  it('first start initialises the cluster, seeds the demo and prints keys and the docs URL', async () => {
    const { proc, output, port } = await startOnce('first');
    try {
      assert.match(output, /sk_test_northwind_demo_server_key_0001/);
      assert.match(output, /pk_test_northwind_demo_booking_page_0001/);
      assert.match(output, new RegExp(`http://127.0.0.1:${port}/docs`));
      assert.match(output, /loaded demo data/);
      const res = await fetch(`http://127.0.0.1:${port}/v1/event-types`, { headers: { authorization: 'Bearer sk_test_northwind_demo_server_key_0001' } });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { event_types: unknown[] }).event_types.length, 3);
      assert.ok(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION')));
    } finally {
      proc.child.kill('SIGTERM');
      assert.equal(await proc.exited, 0);
    }
    assert.ok(!fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), 'PostgreSQL stopped with the service');
  });

  it('a second start reuses the data and does not seed again', async () => {
    const { proc, output, port } = await startOnce('second');
    try {
      assert.doesNotMatch(output, /loaded demo data/);
      const res = await fetch(`http://127.0.0.1:${port}/v1/event-types`, { headers: { authorization: 'Bearer sk_test_northwind_demo_server_key_0001' } });
      assert.equal(((await res.json()) as { event_types: unknown[] }).event_types.length, 3);
    } finally {
      proc.child.kill('SIGINT');
      assert.equal(await proc.exited, 0);
    }
  });

  it('recovers from a stale postmaster.pid left by a killed process', async () => {
    fs.writeFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), '999999\n/nowhere\n1700000000\n5432\n');
    const { proc } = await startOnce('stale-pid');
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0);
  });
});
