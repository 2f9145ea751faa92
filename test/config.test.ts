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
