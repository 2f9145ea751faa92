import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { encryptSecret, newWebhookSecret, signingKey } from '../../../src/domain/webhooks/secrets.ts';
import { secretKeyOf, sign } from '../../../src/domain/webhooks/signature.ts';

describe('sign (native HMAC)', () => {
  it('is byte for byte what the standardwebhooks package signs, and it verifies', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }), (body, seconds) => {
        const secret = newWebhookSecret();
        const at = new Date(seconds * 1000 + 123);
        const ours = sign(secretKeyOf(secret), 'msg_1', at, body);
        assert.equal(ours, new Webhook(secret).sign('msg_1', at, body));
        const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(seconds), 'webhook-signature': ours };
        // verify() checks the timestamp against the clock: verify one made now
        const now = new Date();
        const fresh = {
          ...headers,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': sign(secretKeyOf(secret), 'msg_1', now, JSON.stringify({ body })),
        };
        assert.deepEqual(new Webhook(secret).verify(JSON.stringify({ body }), fresh), { body });
      }),
      { numRuns: 50 },
    );
  });

  it('signingKey follows the stored secret (a rotation stores a new ciphertext) and the storage key', () => {
    const key = Buffer.alloc(32, 1);
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    const at = new Date();
    const storedA = encryptSecret(a, key);
    assert.equal(sign(signingKey(storedA, key), 'm', at, 'x'), new Webhook(a).sign('m', at, 'x'));
    assert.equal(sign(signingKey(storedA, key), 'm', at, 'x'), new Webhook(a).sign('m', at, 'x'), 'cached');
    assert.equal(sign(signingKey(encryptSecret(b, key), key), 'm', at, 'x'), new Webhook(b).sign('m', at, 'x'));
    assert.throws(() => signingKey(storedA, Buffer.alloc(32, 2)), 'another storage key cannot read it, cached or not');
  });
});
