import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';

/**
 * Decisions.md §6: every error, including those Fastify's router and Node's HTTP parser answer
 * before any hook runs, comes in the error envelope with an X-Request-Id.
 */

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(async () => t?.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Sends raw bytes and reads the whole answer (the server closes the connection). */
function rawRequest(text: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = all.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

function expectEnvelope(
  status: number,
  headers: { get(name: string): string | null },
  body: string,
  want: { status: number; type: string; code: string },
  label: string,
) {
  assert.equal(status, want.status, `${label}: ${body}`);
  const parsed = JSON.parse(body);
  assert.equal(parsed.success, false, label);
  assert.equal(parsed.error.type, want.type, label);
  assert.equal(parsed.error.code, want.code, label);
  assert.equal(typeof parsed.error.message, 'string', label);
  assert.ok(headers.get('x-request-id'), `${label}: X-Request-Id`);
  assert.match(headers.get('content-type') ?? '', /^application\/json/, label);
}

describe('malformed URLs (Fastify FST_ERR_BAD_URL)', () => {
  for (const path of ['/v1/bookings/%FF', '/v1/bookings/%', '/v1/bookings/%2', '/v1/bookings/%E0%A4%A', '/bookings/%C0%AF']) {
    it(`${path} → 400 validation_error in the envelope, the client's X-Request-Id echoed`, async () => {
      const res = await t.request('GET', path, { key: KEYS.secret, headers: { 'x-request-id': 'client-id-1' } });
      expectEnvelope(res.status, res.headers, res.text, { status: 400, type: 'invalid_request_error', code: 'validation_error' }, path);
      assert.equal(res.headers.get('x-request-id'), 'client-id-1');
      assert.equal(res.headers.get('vary'), 'Origin');
      assert.equal(res.body.error.field, 'url');
    });
  }

  for (const path of [
    '/v1/bookings?event_type_id=%ED%A0%80',
    '/v1/team/members?skills=%FF',
    '/v1/bookings?attendee_email=a%FF@example.com',
    '/v1/bookings?status=%',
    '/v1/bookings?limit=1&x=%2',
    `/v1/freebusy/${MEMBERS.amara}?start=2026-12-01T09:00:00Z&end=2026-12-01T10:00:00Z&z=%C0%AF`,
  ]) {
    it(`a query ${path.split('?')[1]} → 400 naming url, as the same bytes in the path are`, async () => {
      const res = await t.request('GET', path, { key: KEYS.secret });
      expectEnvelope(res.status, res.headers, res.text, { status: 400, type: 'invalid_request_error', code: 'validation_error' }, path);
      assert.equal(res.body.error.field, 'url');
    });
  }

  it('a query of valid percent-encoding, + for a space included, is read as before', async () => {
    const res = await t.request('GET', '/v1/bookings?attendee_email=%C3%A9l%C3%A9onore%2Bx%40example.com&limit=1', { key: KEYS.secret });
    assert.equal(res.status, 200, res.text);
    const spaced = await t.request('GET', '/v1/team/members?skills=a+b%20c', { key: KEYS.secret });
    assert.equal(spaced.status, 200, spaced.text);
  });

  it("a path id over the router's 500 characters → 404 in the envelope", async () => {
    const res = await t.request('GET', `/v1/bookings/${'b'.repeat(600)}`, { key: KEYS.secret });
    expectEnvelope(res.status, res.headers, res.text, { status: 404, type: 'not_found_error', code: 'not_found' }, 'long id');
  });
});

describe("requests Node's HTTP parser refuses", () => {
  it('a URL over 16 KB → 414 in the envelope with a fresh X-Request-Id', async () => {
    for (const path of [`/v1/bookings/${'a'.repeat(17_000)}`, `/v1/bookings?status=${'a'.repeat(17_000)}`, `/${'a'.repeat(70_000)}`]) {
      const res = await fetch(t.url + path, { headers: { authorization: `Bearer ${KEYS.secret}` } });
      const text = await res.text();
      expectEnvelope(
        res.status,
        res.headers,
        text,
        { status: 414, type: 'invalid_request_error', code: 'uri_too_long' },
        path.slice(0, 20),
      );
      assert.match(res.headers.get('x-request-id')!, UUID);
      assert.equal(JSON.parse(text).error.request_id, res.headers.get('x-request-id'));
    }
  });

  it('headers over 16 KB → 431 in the envelope', async () => {
    const res = await fetch(`${t.url}/v1/bookings`, {
      headers: { authorization: `Bearer ${KEYS.secret}`, 'x-filler': 'f'.repeat(17_000) },
    });
    expectEnvelope(
      res.status,
      res.headers,
      await res.text(),
      { status: 431, type: 'invalid_request_error', code: 'headers_too_large' },
      '431',
    );
  });

  it('a malformed request line or header → 400 in the envelope', async () => {
    for (const text of [
      'GET /v1/bookings HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n',
      'NOT A REQUEST\r\n\r\n',
      'GET /v1/bookings HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n',
    ]) {
      const res = await rawRequest(text);
      const headers = { get: (n: string) => res.headers[n.toLowerCase()] ?? null };
      expectEnvelope(
        res.status,
        headers,
        res.body,
        { status: 400, type: 'invalid_request_error', code: 'validation_error' },
        JSON.stringify(text),
      );
    }
  });

  it('the server keeps serving afterwards', async () => {
    const res = await t.request('GET', '/v1/bookings', { key: KEYS.secret });
    assert.equal(res.status, 200);
  });
});
