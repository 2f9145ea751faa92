import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import { NOW, seedBooking } from './bookings-helpers.ts';

// A request that reaches the API while it shuts down (SIGTERM: the API closes first, the
// database last) is answered as any other, with Connection: close, never with Fastify's own
// 503 body, which has neither the error envelope nor X-Request-Id (decisions.md §6).
let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
});
after(async () => t?.close());

/** Raw HTTP responses read off one socket until it closes. */
function readAll(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('close', () => resolve(text));
  });
}

it('answers a request that arrives while the API closes, in the envelope or in full, and then closes the connection', async () => {
  const id = await seedBooking(t, { status: 'SCHEDULED', start: '2027-05-03T10:00:00Z' });
  // the first request waits for the booking's row, which this transaction holds, so the
  // connection is busy when the API begins to close, and the second request comes after that
  const holder = await t.db.pool.connect();
  await holder.query('begin');
  await holder.query('select 1 from bookings where id = $1 for update', [id]);
  const { port } = new URL(t.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const all = readAll(socket);
  const body = JSON.stringify({ attendee: { name: 'During shutdown' } });
  socket.write(
    `PATCH /v1/bookings/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.secret}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: first\r\n\r\n${body}`,
  );
  await new Promise((r) => setTimeout(r, 200)); // the PATCH is waiting for the row
  const closing = t.app.close();
  await new Promise((r) => setTimeout(r, 50));
  socket.write(`GET /v1/bookings/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.secret}\r\nX-Request-Id: second\r\n\r\n`);
  await new Promise((r) => setTimeout(r, 50));
  await holder.query('commit');
  holder.release();
  const text = await all;
  await closing;
  const responses = text.split(/(?=HTTP\/1\.1 )/);
  assert.equal(responses.length, 2, text);
  assert.match(responses[0], /^HTTP\/1\.1 200 /);
  assert.match(responses[1], /^HTTP\/1\.1 200 /, `the second request is served, not refused: ${responses[1]}`);
  assert.match(responses[1], /\r\nx-request-id: second\r\n/i);
  assert.match(responses[1], /\r\nconnection: close\r\n/i);
});
