import fs from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** The client's port: equal ports mean one kept-alive connection. */
  remotePort: number | undefined;
}

/** What the receiver answers; `hangMs` holds the request open that long before answering. */
export interface Reply {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  hangMs?: number;
}

export interface HttpsReceiver {
  /** https://127.0.0.1:PORT */
  origin: string;
  port: number;
  /** PEM file of the self-signed certificate (its own CA), for WEBHOOK_CA_FILE / NODE_EXTRA_CA_CERTS. */
  caFile: string;
  received: Received[];
  /** Decides each answer; default 200 "ok". */
  reply: (r: Received, path: string) => Reply;
  /** Resolves once `count` requests to `path` (any path when omitted) have arrived. */
  waitFor(count: number, opts?: { path?: string; timeoutMs?: number }): Promise<Received[]>;
  /** Requests received on one path, in order. */
  on(path: string): Received[];
  close(): Promise<void>;
}

/** A real HTTPS server on 127.0.0.1 with a fresh self-signed certificate. */
export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'receiver-'));
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, pems.cert);

  const byPath = new Map<string, Received[]>();
  const waiters = new Set<() => void>();
  const open = new Set<ServerResponse>();
  const receiver: HttpsReceiver = {
    origin: '',
    port: 0,
    caFile,
    received: [],
    reply: () => ({ status: 200, body: 'ok' }),
    on: (p) => byPath.get(p) ?? [],
    waitFor(count, opts = {}) {
      const list = () => (opts.path ? receiver.on(opts.path) : receiver.received);
      return new Promise((resolve, reject) => {
        const check = () => {
          if (list().length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(list());
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: ${list().length} of ${count} requests${opts.path ? ` to ${opts.path}` : ''} arrived in time`));
        }, opts.timeoutMs ?? 10_000);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };

  const server = https.createServer(
    { key: pems.private, cert: pems.cert, keepAliveTimeout: 30_000 },
    (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
          remotePort: req.socket.remotePort,
        };
        const p = (req.url ?? '/').split('?')[0]!;
        receiver.received.push(r);
        byPath.set(p, [...(byPath.get(p) ?? []), r]);
        for (const w of [...waiters]) w();
        const answer = receiver.reply(r, p);
        const send = () => {
          open.delete(res);
          if (res.destroyed) return;
          const body = Buffer.from(answer.body ?? '');
          res.writeHead(answer.status ?? 200, {
            'content-type': 'text/plain',
            'content-length': String(body.length),
            ...(answer.headers ?? {}),
          });
          res.end(body);
        };
        if (answer.hangMs) {
          open.add(res);
          setTimeout(send, answer.hangMs).unref();
        } else send();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.origin = `https://127.0.0.1:${receiver.port}`;
  return receiver;
}
