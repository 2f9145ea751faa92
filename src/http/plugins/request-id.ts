import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

// Printable ASCII is 0x20..0x7e; HTTP already trims leading and trailing spaces.
const PRINTABLE = /^[\x20-\x7e]{1,128}$/;

/** A client's X-Request-Id is echoed when it is 1..128 printable ASCII characters. */
export function requestIdFor(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && PRINTABLE.test(sent) ? sent : randomUUID();
}

export function installRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    reply.header('Vary', 'Origin');
  });
}
