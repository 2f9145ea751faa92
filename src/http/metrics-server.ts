import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exposition } from '../metrics.ts';

/** Whether an Authorization header is `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const sent = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (sent === undefined) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /metrics alone, for a `worker` process (which serves no API) when METRICS_PORT is set,
 * so the routing, webhook, email and job metrics of separate worker processes can be scraped
 * too. Same format and METRICS_TOKEN rule as the API's /metrics.
 */
export async function serveMetrics(
  host: string,
  port: number,
  token: string | undefined,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const json = (status: number, type: string, message: string) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ success: false, error: { type, code: status === 401 ? 'unauthorized' : 'not_found', message } }));
      };
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics')
        return json(404, 'not_found_error', 'only GET /metrics is served here');
      if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
        return json(401, 'authentication_error', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
      }
      const { contentType, body } = await exposition();
      res.writeHead(200, { 'content-type': contentType });
      res.end(body);
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
