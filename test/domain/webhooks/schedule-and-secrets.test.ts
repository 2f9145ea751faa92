import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { maxAttempts, nextAttemptAt } from '../../../src/domain/webhooks/schedule.ts';
import { decryptSecret, encryptSecret, newWebhookSecret } from '../../../src/domain/webhooks/secrets.ts';

const DEFAULT = [1, 5, 25, 125, 625];
const at = new Date('2026-11-23T10:00:00Z');

describe('retry schedule', () => {
  it('the default makes 5 attempts: at once, then after about 1, 5, 25 and 125 s', () => {
    assert.equal(maxAttempts(DEFAULT), 5);
    const mid = () => 0.5; // no jitter
    assert.deepEqual(
      [1, 2, 3, 4].map((p) => (nextAttemptAt(DEFAULT, p, at, mid)!.getTime() - at.getTime()) / 1000),
      [1, 5, 25, 125],
    );
    assert.equal(nextAttemptAt(DEFAULT, 5, at, mid), null, 'no sixth attempt');
  });

  it('jitters by at most 10%', () => {
    assert.equal(nextAttemptAt(DEFAULT, 3, at, () => 0)!.getTime() - at.getTime(), 22_500);
    assert.equal(nextAttemptAt(DEFAULT, 3, at, () => 1)!.getTime() - at.getTime(), 27_500);
  });

  it('WEBHOOK_RETRY_SCHEDULE sets the number of attempts', () => {
    assert.equal(maxAttempts(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.1,0.1,0.1' }).webhookRetrySchedule), 3);
    assert.deepEqual(loadConfig({}).webhookRetrySchedule, DEFAULT);
  });
});

describe('secrets', () => {
  it('whsec_ + base64 of 32 random bytes, usable by standardwebhooks', () => {
    const s = newWebhookSecret();
    assert.match(s, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(s, newWebhookSecret());
    const body = '{"event":"BOOKING_CREATED"}';
    const now = new Date();
    const sig = new Webhook(s).sign('msg_1', now, body);
    assert.match(sig, /^v1,[A-Za-z0-9+/]+=*$/);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': sig };
    assert.deepEqual(new Webhook(s).verify(body, headers), { event: 'BOOKING_CREATED' });
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
  });

  it('are stored encrypted (AES-256-GCM) and only the right key opens them', () => {
    const key = loadConfig({}).webhookSecretKey;
    const s = newWebhookSecret();
    const stored = encryptSecret(s, key);
    assert.ok(!stored.includes(s.slice(6)));
    assert.notEqual(encryptSecret(s, key), stored, 'a fresh IV every time');
    assert.equal(decryptSecret(stored, key), s);
    const other = loadConfig({ WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }).webhookSecretKey;
    assert.throws(() => decryptSecret(stored, other));
    const tampered = stored.slice(0, -4) + (stored.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    assert.throws(() => decryptSecret(tampered, key));
  });

  it('WEBHOOK_SECRET_KEY must be base64 of 32 bytes; without it the development key is used and flagged', () => {
    assert.throws(() => loadConfig({ WEBHOOK_SECRET_KEY: 'short' }), ConfigError);
    const dev = loadConfig({});
    assert.equal(dev.webhookSecretKeyIsDefault, true);
    assert.equal(dev.webhookSecretKey.length, 32);
    assert.deepEqual(loadConfig({}).webhookSecretKey, dev.webhookSecretKey, 'deterministic');
    assert.equal(loadConfig({ WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') }).webhookSecretKeyIsDefault, false);
  });

  it('WEBHOOK_ALLOW_PRIVATE_TARGETS is refused in production', () => {
    assert.throws(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', NODE_ENV: 'production' }), /WEBHOOK_ALLOW_PRIVATE_TARGETS/);
  });
});
