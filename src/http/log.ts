import type { LoggerOptions } from 'pino';

/** Headers that carry a key or a session; pino replaces their values. */
export const REDACT = ['req.headers.authorization', 'req.headers["service-api-key"]', 'req.headers["x-api-key"]', 'req.headers.cookie'];

export const REDACTED = '[redacted]';

/**
 * Query parameters whose value may be a credential: any name holding `key`, `token`, `secret`,
 * `passw`, `signature`, `credential`, `session` or `auth`, or named `sig`, in any case
 * (`api_key`, `apiKey`, `access_token`, `client_secret`, `Authorization`). Redacting a
 * harmless `monkey=` too costs nothing.
 */
const SECRET_NAME = /key|token|secret|passw|signature|credential|session|auth|^sig$/i;
/** A value that is one of our keys or webhook secrets whatever the parameter is called. */
const SECRET_VALUE = /^(sk|pk|rk)_(test|live)_|^whsec_/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** A path with every segment that is one of our keys or webhook secrets replaced (`/v1/bookings/sk_live_…`). */
function redactPath(path: string): string {
  if (!/(?:sk|pk|rk)(?:_|%5f)|whsec(?:_|%5f)/i.test(path)) return path;
  return path
    .split('/')
    .map((segment) => (SECRET_VALUE.test(decoded(segment)) ? REDACTED : segment))
    .join('/');
}

/**
 * A URL as it may be logged: every query parameter holding a secret has its value replaced
 * (decisions.md §6: a key sent in a query string by mistake is never logged), and so has every
 * path segment that is a key or a webhook secret (one pasted as an id). The rest is kept as sent.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return redactPath(url);
  const query = url.slice(q + 1);
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    if (value === '') return part;
    return SECRET_NAME.test(decoded(name)) || SECRET_VALUE.test(decoded(value)) ? `${name}=${REDACTED}` : part;
  });
  return `${redactPath(url.slice(0, q))}?${parts.join('&')}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * Fastify's request serializer with the URL's secrets redacted, for any line that logs `req`
 * (the one line per request of plugins/observability.ts logs `redactUrl(url)` itself).
 */
export const serializers = {
  req(req: LoggedRequest) {
    return {
      method: req.method,
      url: redactUrl(req.url),
      host: req.host,
      remoteAddress: req.ip,
      remotePort: req.socket?.remotePort,
    };
  },
};

/** The pino options of the service's logger (the server's and the CLI's). */
export function loggerOptions(level: string): LoggerOptions {
  return { level, redact: { paths: REDACT, censor: REDACTED }, serializers };
}
