import type { BookingServiceError } from './errors.ts';
import { ConnectionError, errorFromResponse, retryAfterMs } from './errors.ts';
import type { Method } from './operations.ts';

export interface ClientOptions {
  /** A secret key (sk_live_/sk_test_) on a server, or a publishable key (pk_) in a browser. */
  apiKey: string;
  /** The service's root, e.g. https://booking.example.com (a trailing /v1 is accepted too). */
  baseUrl: string;
  /** Retries after a 429, a 5xx or a network error; default 2. */
  maxRetries?: number;
  /** A 429 asking to wait longer than this is thrown at once; default 60 000 ms. */
  maxRetryAfterMs?: number;
  /** Per attempt; default 30 000 ms. */
  timeoutMs?: number;
  /** First backoff delay, doubled per retry with jitter, capped at 8 s; default 500 ms. */
  retryBaseDelayMs?: number;
  /** Another fetch implementation (defaults to the global one). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** Sent as Idempotency-Key; every POST and DELETE gets a fresh UUID when omitted. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  maxRetries?: number;
  timeoutMs?: number;
  /** Sent as X-Request-Id (1..128 printable ASCII characters), to trace a call in the service's logs. */
  requestId?: string;
}

export interface Call {
  method: Method;
  /** A path of the document, e.g. /v1/bookings/{id}. */
  path: string;
  pathParams?: Record<string, string>;
  query?: object;
  body?: unknown;
}

const MAX_BACKOFF_MS = 8_000;

/** Sends one operation: key, Idempotency-Key, timeouts, retries and error mapping. */
export class Transport {
  readonly baseUrl: string;
  private readonly options: ClientOptions;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new TypeError('createClient: apiKey is required');
    if (!options.baseUrl) throw new TypeError('createClient: baseUrl is required');
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  url(call: Call): string {
    const path = call.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = call.pathParams?.[name];
      if (value === undefined || value === '') throw new TypeError(`${call.path}: path parameter "${name}" is required`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) {
      if (v === undefined || v === null) continue;
      for (const item of Array.isArray(v) ? v : [v]) search.append(k, String(item));
    }
    const qs = search.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  async send<T>(call: Call, opts: RequestOptions = {}): Promise<T> {
    const url = this.url(call);
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${this.options.apiKey}` };
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (opts.requestId) headers['X-Request-Id'] = opts.requestId;
    // One key for every attempt: a retried create or cancel is then a replay, never a second booking.
    if (call.method === 'post' || call.method === 'delete') headers['Idempotency-Key'] = opts.idempotencyKey ?? crypto.randomUUID();
    const retrySafe = call.method === 'get' || 'Idempotency-Key' in headers;
    const maxRetries = opts.maxRetries ?? this.options.maxRetries ?? 2;
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs ?? 30_000;

    for (let attempt = 0; ; attempt++) {
      const signals = [AbortSignal.timeout(timeoutMs), ...(opts.signal ? [opts.signal] : [])];
      let res: Response;
      let text: string;
      try {
        res = await this.fetchImpl(url, { method: call.method.toUpperCase(), headers, body, signal: AbortSignal.any(signals) });
        text = await res.text();
      } catch (cause) {
        if (opts.signal?.aborted) throw cause;
        if (retrySafe && attempt < maxRetries) {
          await sleep(this.backoff(attempt), opts.signal);
          continue;
        }
        const message = cause instanceof Error && cause.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : String(cause);
        throw new ConnectionError(
          { status: 0, type: 'connection_error', code: 'connection_error', message: `${call.method.toUpperCase()} ${url}: ${message}` },
          { cause },
        );
      }
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      if (res.ok && parsed !== undefined) return parsed as T;
      const error = res.ok
        ? errorFromResponse(502, res.headers, undefined, `answer is not JSON: ${text.slice(0, 100)}`)
        : errorFromResponse(res.status, res.headers, parsed, text);
      const wait = this.retryDelay(error, attempt, maxRetries, retrySafe);
      if (wait === undefined) throw error;
      await sleep(wait, opts.signal);
    }
  }

  /** How long to wait before the next attempt, or undefined to give up. */
  private retryDelay(error: BookingServiceError, attempt: number, maxRetries: number, retrySafe: boolean): number | undefined {
    if (attempt >= maxRetries) return undefined;
    const asked = retryAfterMs(error.headers);
    if (error.status === 429) {
      // The service refused before doing anything, so any request may be sent again.
      if (asked !== undefined && asked > (this.options.maxRetryAfterMs ?? 60_000)) return undefined;
      return asked ?? this.backoff(attempt);
    }
    if (error.status >= 500 && retrySafe) return Math.max(asked ?? 0, this.backoff(attempt));
    return undefined;
  }

  /** Exponential backoff with jitter: base * 2^attempt, between half and all of it, at most 8 s. */
  private backoff(attempt: number): number {
    const full = Math.min(MAX_BACKOFF_MS, (this.options.retryBaseDelayMs ?? 500) * 2 ** attempt);
    return full / 2 + Math.random() * (full / 2);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
