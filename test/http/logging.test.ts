import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loggerOptions, redactUrl } from '../../src/http/log.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';

/** Decisions.md §6: secrets are never logged, including a key sent in a query string by mistake. */

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

let t: TestApp;
before(async () => {
  t = await startApp({ log: pino(loggerOptions('info'), sink) });
});
after(async () => t?.close());

describe('query-string secrets in the access log', () => {
  it('redacts api_key, key, token and secret-like parameters and key-shaped values; keeps the rest', async () => {
    const secrets = [KEYS.secret, 'tok-123456', 'shh-secret-value', 'pw-hunter2', KEYS.publishable];
    const path =
      `/v1/bookings?status=SCHEDULED&api_key=${KEYS.secret}&access_token=tok-123456&client_secret=shh-secret-value` +
      `&Password=pw-hunter2&note=${KEYS.publishable}&limit=5`;
    const res = await t.request('GET', path, { key: KEYS.secret });
    assert.equal(res.status, 200, res.text);
    await new Promise((r) => setTimeout(r, 50));
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request' && l.url?.includes('status=SCHEDULED'));
    assert.ok(line, `no access log line in ${lines.length} lines`);
    assert.equal(
      line.url,
      '/v1/bookings?status=SCHEDULED&api_key=[redacted]&access_token=[redacted]&client_secret=[redacted]&Password=[redacted]&note=[redacted]&limit=5',
    );
    const all = lines.join('\n');
    for (const s of secrets) assert.ok(!all.includes(s), `${s} appears in the log`);
    assert.ok(!all.includes(KEYS.secret), 'the Authorization header is redacted too');
  });

  it('redactUrl: names in any case and encoding, values, and URLs without a query', () => {
    assert.equal(redactUrl('/v1/bookings'), '/v1/bookings');
    assert.equal(redactUrl('/x?key=abc'), '/x?key=[redacted]');
    assert.equal(redactUrl('/x?apiKey=abc&API%5FKEY=def&token='), '/x?apiKey=[redacted]&API%5FKEY=[redacted]&token=');
    assert.equal(redactUrl('/x?q=sk_live_abc&w=whsec_abc&ok=1'), '/x?q=[redacted]&w=[redacted]&ok=1');
    assert.equal(redactUrl('/x?a=%E0%A4%A&key'), '/x?a=%E0%A4%A&key');
    assert.equal(redactUrl('/v1/bookings/sk_live_abc?limit=1'), '/v1/bookings/[redacted]?limit=1');
    assert.equal(redactUrl('/v1/freebusy/SK%5FTEST%5Fabc'), '/v1/freebusy/[redacted]');
    assert.equal(redactUrl('/v1/bookings/bkg_0123/skip_this'), '/v1/bookings/bkg_0123/skip_this');
  });

  it('a key pasted into the path as an id is not logged, whatever route it reaches', async () => {
    for (const path of [
      `/v1/bookings/${KEYS.live}`,
      `/v1/bookings/external/${KEYS.secret}`,
      `/v1/freebusy/${KEYS.secret}`,
      `/v1/event-types/${KEYS.publishable}`,
      `/book/${KEYS.secret}`,
    ]) {
      const before = lines.length;
      const res = await t.request('GET', path, { key: KEYS.secret });
      assert.ok(res.status >= 400 && res.status < 500, `${path}: ${res.status}`);
      await new Promise((r) => setTimeout(r, 50));
      const logged = lines.slice(before).join('\n');
      assert.ok(logged.includes('[redacted]'), `${path}: ${logged}`);
      for (const key of [KEYS.live, KEYS.secret, KEYS.publishable]) assert.ok(!logged.includes(key), `${path}: ${logged}`);
    }
  });
});

describe('the access log line at a level that drops it', () => {
  it('is not written (nor built) when the logger is above info', async () => {
    const quiet: string[] = [];
    const app = await startApp({
      log: pino(
        loggerOptions('warn'),
        new Writable({
          write(chunk, _enc, done) {
            quiet.push(chunk.toString('utf8'));
            done();
          },
        }),
      ),
    });
    try {
      const res = await app.request('GET', '/v1/bookings?limit=1', { key: KEYS.secret });
      assert.equal(res.status, 200, res.text);
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(!quiet.join('').includes('"msg":"request"'), quiet.join(''));
    } finally {
      await app.close();
    }
  });
});
