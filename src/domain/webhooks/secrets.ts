import type { KeyObject } from 'node:crypto';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { secretKeyOf } from './signature.ts';

/** A new signing secret in the Standard Webhooks form: whsec_ + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

// v1 = AES-256-GCM, 12-byte IV, 16-byte tag. The version prefix lets a later key or cipher
// coexist with rows written under this one.
const VERSION = 'v1';

/** Encrypts a secret for storage; the database never holds it in plain text. */
export function encryptSecret(secret: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/** Decrypts a stored secret; throws when the key is not the one it was written with. */
export function decryptSecret(stored: string, key: Buffer): string {
  const [version, data] = stored.split('.', 2);
  if (version !== VERSION || !data) throw new Error(`webhook secret: unknown storage format "${version}"`);
  const raw = Buffer.from(data, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

// Decrypted signing keys by stored ciphertext, per storage key: an attempt signs with the
// secret stored now (a rotation stores a new ciphertext, so it misses), without an AES-GCM
// decryption per attempt. Bounded: cleared when full.
const keyCache = new WeakMap<Buffer, Map<string, KeyObject>>();
const KEY_CACHE_SIZE = 1000;

/** The HMAC key of a stored secret (decrypted once per process and ciphertext). */
export function signingKey(stored: string, key: Buffer): KeyObject {
  let cache = keyCache.get(key);
  if (!cache) keyCache.set(key, (cache = new Map()));
  let bytes = cache.get(stored);
  if (!bytes) {
    if (cache.size >= KEY_CACHE_SIZE) cache.clear();
    bytes = secretKeyOf(decryptSecret(stored, key));
    cache.set(stored, bytes);
  }
  return bytes;
}

let warned = false;

/** Logs once per process that the public development key protects the secrets. */
export function warnIfDevelopmentKey(config: { webhookSecretKeyIsDefault: boolean }, log: { warn(msg: string): void }): void {
  if (!config.webhookSecretKeyIsDefault || warned) return;
  warned = true;
  log.warn(
    'WEBHOOK_SECRET_KEY is not set: webhook secrets are encrypted with the public development key; set it in production (docs/webhooks.md)',
  );
}
