import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { TYPES_FILE, generatedTypes } from '../../sdk/scripts/generate-types.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';

const SDK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sdk');
const TSC = path.resolve(SDK, '../node_modules/typescript/bin/tsc');

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(async () => t?.close());

describe('the @booking-service/sdk package', () => {
  it('has types generated from the current OpenAPI document (else: npm run sdk:types)', async () => {
    const expected = await generatedTypes();
    assert.ok(fs.readFileSync(TYPES_FILE, 'utf8') === expected, 'sdk/src/openapi.ts is stale: run npm run sdk:types and commit it');
  });

  it('builds with its own tsconfig into the files its package.json exports, and the built client works', async () => {
    const outDir = fs.mkdtempSync(path.join(SDK, '.build-'));
    try {
      await promisify(execFile)(process.execPath, [TSC, '-p', path.join(SDK, 'tsconfig.json'), '--outDir', outDir]);
      const pkg = JSON.parse(fs.readFileSync(path.join(SDK, 'package.json'), 'utf8'));
      assert.equal(pkg.name, '@booking-service/sdk');
      assert.deepEqual(Object.keys(pkg.dependencies), ['standardwebhooks'], 'no runtime dependency beyond standardwebhooks');
      const entry = pkg.exports['.'];
      for (const file of [entry.types, entry.default]) {
        assert.ok(fs.existsSync(path.join(outDir, path.relative('dist', file))), `${file} is built`);
      }
      const built = await import(pathToFileURL(path.join(outDir, path.relative('dist', entry.default))).href);
      const client = built.createClient({ apiKey: KEYS.secret, baseUrl: t.url });
      const types = await client.eventTypes.list();
      assert.ok(types.length > 0);
      const err = await client.bookings.get('bkg_missing').catch((e: unknown) => e);
      assert.ok(err instanceof built.NotFoundError);
      assert.equal(typeof built.verifyWebhook, 'function');
    } finally {
      fs.rmSync(outDir, { recursive: true, force: true });
    }
  });
});
