import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { generate } from 'selfsigned';
import { ConfigError, loadConfig } from '../src/config.ts';

/** Decisions.md §1: every variable is checked at start, a bad value named in one line. */
const refused = (env: Record<string, string>, line: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (e: Error) => e instanceof ConfigError && line.test(e.message),
  );

describe('MAIL_FROM', () => {
  it('takes a bare address or Name <address>, as written, and the default without it', () => {
    assert.equal(loadConfig({ MAIL_FROM: 'bookings@northwind.example' }).mailFrom, 'bookings@northwind.example');
    assert.equal(loadConfig({ MAIL_FROM: ' Northwind <bookings@northwind.example> ' }).mailFrom, 'Northwind <bookings@northwind.example>');
    assert.equal(loadConfig({}).mailFrom, 'Booking Service <no-reply@booking-service.local>');
  });

  it('refuses anything else, naming the variable', () => {
    for (const bad of ['not an address', 'Northwind <bookings@>', 'a@b.example, c@d.example', '<a@x..example>']) {
      refused({ MAIL_FROM: bad }, /^MAIL_FROM: expected an address or "Name <address>"/);
    }
  });
});

describe('WEBHOOK_CA_FILE', () => {
  it('takes a readable PEM certificate, and refuses a missing file or one without a certificate', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bs-config-'));
    try {
      const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' });
      const ca = path.join(dir, 'ca.pem');
      fs.writeFileSync(ca, pems.cert);
      assert.equal(loadConfig({ WEBHOOK_CA_FILE: ca }).webhookCaFile, ca);
      const key = path.join(dir, 'key.pem');
      fs.writeFileSync(key, pems.private);
      refused({ WEBHOOK_CA_FILE: key }, /^WEBHOOK_CA_FILE: ".*key\.pem" holds no PEM certificate$/);
      const broken = path.join(dir, 'broken.pem');
      fs.writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n');
      refused({ WEBHOOK_CA_FILE: broken }, /holds no PEM certificate$/);
      refused({ WEBHOOK_CA_FILE: path.join(dir, 'missing.pem') }, /^WEBHOOK_CA_FILE: cannot read ".*missing\.pem" \(ENOENT\)$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('API_POOL_SIZE', () => {
  it('takes a whole number from 1 to 500, 20 without it, and refuses anything else', () => {
    assert.equal(loadConfig({}).apiPoolSize, 20);
    assert.equal(loadConfig({ API_POOL_SIZE: '1' }).apiPoolSize, 1);
    assert.equal(loadConfig({ API_POOL_SIZE: '500' }).apiPoolSize, 500);
    refused({ API_POOL_SIZE: '0' }, /^API_POOL_SIZE: must be between 1 and 500, got 0$/);
    refused({ API_POOL_SIZE: '501' }, /^API_POOL_SIZE: must be between 1 and 500, got 501$/);
    refused({ API_POOL_SIZE: 'ten' }, /^API_POOL_SIZE: expected a whole number, got "ten"$/);
  });
});

describe('WEBHOOK_MAX_SENDS', () => {
  it('takes a whole number from 1 to 10000, 256 without it, and refuses anything else', () => {
    assert.equal(loadConfig({}).webhookMaxSends, 256);
    assert.equal(loadConfig({ WEBHOOK_MAX_SENDS: '1' }).webhookMaxSends, 1);
    assert.equal(loadConfig({ WEBHOOK_MAX_SENDS: '10000' }).webhookMaxSends, 10_000);
    refused({ WEBHOOK_MAX_SENDS: '0' }, /^WEBHOOK_MAX_SENDS: must be between 1 and 10000, got 0$/);
    refused({ WEBHOOK_MAX_SENDS: 'many' }, /^WEBHOOK_MAX_SENDS: expected a whole number, got "many"$/);
  });
});
