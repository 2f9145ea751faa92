import { X509Certificate, createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { isEmailAddress } from './domain/email-address.ts';

/** Raised for bad environment variables; the message has one line per bad value; the CLI prints it and exits 78. */
export class ConfigError extends Error {}

export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  /** DATA_DIR was not set: dataDir is ./data. */
  dataDirIsDefault: boolean;
  port: number;
  host: string;
  redisUrl: string | undefined;
  /**
   * FREEBUSY_CACHE=off: no free/busy or availability answer is cached, every request computes.
   * For measuring the uncached read path against a real process (the scale bench); never needed in production.
   */
  freebusyCache: boolean;
  smtpUrl: string | undefined;
  mailFrom: string;
  webhookAllowPrivateTargets: boolean;
  /**
   * Webhook attempts: its length is the number of attempts (default 5); the first is made at
   * once, and entry k (1-based) is the wait in seconds after a failed attempt k before attempt
   * k + 1, so the last entry is never waited (docs/webhooks.md).
   */
  webhookRetrySchedule: number[];
  /** 32-byte AES-256-GCM key that encrypts webhook secrets at rest (WEBHOOK_SECRET_KEY, base64). */
  webhookSecretKey: Buffer;
  /** True when WEBHOOK_SECRET_KEY is unset and the public development key is in use. */
  webhookSecretKeyIsDefault: boolean;
  /** Extra CA certificate (PEM file) trusted for webhook delivery, for self-signed test receivers. */
  webhookCaFile: string | undefined;
  /** DNS_SERVERS: name servers for webhook host names (`ip` or `ip:port`); unset: the system's. */
  dnsServers: string[] | undefined;
  rateLimitLive: number;
  rateLimitTest: number;
  workerConcurrency: number;
  /** WEBHOOK_MAX_SENDS: webhook sends one worker process has in flight at most (src/domain/webhooks/sends.ts). */
  webhookMaxSends: number;
  /** API_POOL_SIZE: the most database connections the API of one `serve` process holds at once. */
  apiPoolSize: number;
  logLevel: string;
  /** `pretty` (human-readable lines) or `json`; default: pretty when stdout is a terminal. */
  logFormat: 'pretty' | 'json';
  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
  metricsToken: string | undefined;
  /** A `worker` process serves GET /metrics on HOST:METRICS_PORT when set (`serve` has it on PORT). */
  metricsPort: number | undefined;
  nodeEnv: string;
  publicUrl: string | undefined;
  /** Seconds between two syncs of a connected calendar (CALENDAR_SYNC_INTERVAL, docs/calendars.md). */
  calendarSyncInterval: number;
  /** Days ahead of today that calendar busy time is read for (CALENDAR_SYNC_HORIZON_DAYS). */
  calendarSyncHorizonDays: number;
  /** Deadline of one request to a calendar server, in ms (CALENDAR_REQUEST_TIMEOUT_MS, default 10 s). */
  calendarRequestTimeoutMs: number;
  /** Attempts of one calendar write-back before the calendar shows ERROR (CALENDAR_WRITE_ATTEMPTS). */
  calendarWriteAttempts: number;
  /** Days kept of what only grows; the enforce-retention job deletes older rows (docs/operations.md, Retention). */
  retention: {
    /** booking_events, the outbox of booking events (RETENTION_DAYS_EVENTS). */
    eventsDays: number;
    /** webhook_messages and their delivery history, once settled (RETENTION_DAYS_WEBHOOK_DELIVERIES). */
    webhookDeliveriesDays: number;
    /** email_outbox rows sent, logged or failed for good (RETENTION_DAYS_EMAILS). */
    emailsDays: number;
    /** Rows deleted per statement, each its own short transaction (RETENTION_BATCH_SIZE). */
    batchSize: number;
  };
}

type Env = Record<string, string | undefined>;

// underscores too: container and service names (docker compose) use them
const LABEL = /^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$/;

/** An address to listen on: an IP address or a host name (checked at start, not when listening fails). */
function host(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name];
  if (!value) return fallback;
  const bare = value.endsWith('.') ? value.slice(0, -1) : value; // a fully qualified name may end with a dot
  if (net.isIP(value) || (bare.length <= 253 && bare.split('.').every((l) => LABEL.test(l)))) return value;
  throw new ConfigError(`${name}: must be an IP address or a host name, got "${value}"`);
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name}: expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name}: must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name}: expected "true" or "false", got "${raw}"`);
}

const DEFAULT_MAIL_FROM = 'Booking Service <no-reply@booking-service.local>';

/** An address, bare or as `Name <address>`, that every email is sent from. */
function mailFrom(env: Env, name: string): string {
  const raw = env[name] || DEFAULT_MAIL_FROM;
  const m = /^\s*(?:[^<>]*<([^<>]+)>|([^<>\s]+))\s*$/.exec(raw);
  const address = m ? (m[1] ?? m[2]).trim() : '';
  if (!isEmailAddress(address)) throw new ConfigError(`${name}: expected an address or "Name <address>", got "${raw}"`);
  return raw.trim();
}

/** A PEM file of one or more CA certificates, read now so that a wrong path fails the start, not a delivery. */
function caFile(env: Env, name: string): string | undefined {
  const file = env[name];
  if (!file) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${name}: cannot read "${file}" (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text)?.[0];
  if (pem === undefined || !isCertificate(pem)) throw new ConfigError(`${name}: "${file}" holds no PEM certificate`);
  return file;
}

function isCertificate(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name}: not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name}: protocol must be one of ${protocols.join(', ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function schedule(env: Env, name: string): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return [1, 5, 25, 125, 625];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    throw new ConfigError(`${name}: expected comma-separated seconds such as "1,5,25", got "${raw}"`);
  }
  if (parts.length > 20) throw new ConfigError(`${name}: at most 20 retry delays`);
  return parts.map(Number);
}

/** A comma-separated list of name servers: `1.1.1.1`, `1.1.1.1:53`, `::1`, `[::1]:53`. */
function dnsServers(env: Env, name: string): string[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const servers = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of servers) {
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(s) ?? /^([^:]+)(?::(\d+))?$/.exec(s) ?? [s, s, undefined];
    const port = m[2] === undefined ? 53 : Number(m[2]);
    if (!net.isIP(m[1]!) || port < 1 || port > 65535) {
      throw new ConfigError(
        `${name}: expected comma-separated IP addresses with optional ports ("1.1.1.1", "10.0.0.2:53", "[::1]:53"), got "${s}"`,
      );
    }
  }
  return servers;
}

function secretKey(env: Env, name: string): Buffer | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(`${name}: expected base64 of 32 bytes (openssl rand -base64 32)`);
  return key;
}

// Known to everyone on purpose: it only keeps development databases from holding plain secrets.
const DEVELOPMENT_WEBHOOK_KEY = createHash('sha256').update('booking-service development webhook secret key').digest();

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  // Every bad variable is reported at once, one line each, so a deploy is fixed in one go.
  const problems: string[] = [];
  function check<T>(read: () => T, fallback: T): T {
    try {
      return read();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
      return fallback;
    }
  }
  const logLevel = check(() => {
    const level = env.LOG_LEVEL || 'info';
    if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
    return level;
  }, 'info');
  const logFormat = check(() => {
    const format = env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json');
    if (format !== 'pretty' && format !== 'json') throw new ConfigError(`LOG_FORMAT: must be pretty or json, got "${format}"`);
    return format;
  }, 'json' as const);
  const nodeEnv = env.NODE_ENV || 'development';
  const allowPrivate = check(() => bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'), false);
  if (allowPrivate && nodeEnv === 'production') {
    problems.push('WEBHOOK_ALLOW_PRIVATE_TARGETS: must not be true when NODE_ENV=production');
  }
  const webhookSecretKey = check(() => secretKey(env, 'WEBHOOK_SECRET_KEY'), undefined);
  const freebusyCache = check(() => {
    const raw = env.FREEBUSY_CACHE || 'on';
    if (raw !== 'on' && raw !== 'off') throw new ConfigError(`FREEBUSY_CACHE: must be on or off, got "${raw}"`);
    return raw === 'on';
  }, true);
  const config: Config = {
    databaseUrl: check(() => url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']), undefined),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    dataDirIsDefault: !env.DATA_DIR,
    port: check(() => int(env, 'PORT', 3000, 0, 65535), 3000),
    host: check(() => host(env, 'HOST', '127.0.0.1'), '127.0.0.1'),
    redisUrl: check(() => url(env, 'REDIS_URL', ['redis:', 'rediss:']), undefined),
    freebusyCache,
    smtpUrl: check(() => url(env, 'SMTP_URL', ['smtp:', 'smtps:']), undefined),
    mailFrom: check(() => mailFrom(env, 'MAIL_FROM'), DEFAULT_MAIL_FROM),
    webhookAllowPrivateTargets: allowPrivate,
    webhookRetrySchedule: check(() => schedule(env, 'WEBHOOK_RETRY_SCHEDULE'), []),
    webhookSecretKey: webhookSecretKey ?? DEVELOPMENT_WEBHOOK_KEY,
    webhookSecretKeyIsDefault: webhookSecretKey === undefined,
    webhookCaFile: check(() => caFile(env, 'WEBHOOK_CA_FILE'), undefined),
    dnsServers: check(() => dnsServers(env, 'DNS_SERVERS'), undefined),
    rateLimitLive: check(() => int(env, 'RATE_LIMIT_LIVE_PER_MINUTE', 1000, 1, 1_000_000), 1000),
    rateLimitTest: check(() => int(env, 'RATE_LIMIT_TEST_PER_MINUTE', 100, 1, 1_000_000), 100),
    workerConcurrency: check(() => int(env, 'WORKER_CONCURRENCY', 64, 1, 500), 64),
    webhookMaxSends: check(() => int(env, 'WEBHOOK_MAX_SENDS', 256, 1, 10_000), 256),
    apiPoolSize: check(() => int(env, 'API_POOL_SIZE', 20, 1, 500), 20),
    logLevel,
    logFormat,
    metricsToken: env.METRICS_TOKEN || undefined,
    metricsPort: env.METRICS_PORT ? check(() => int(env, 'METRICS_PORT', 0, 0, 65535), undefined) : undefined,
    nodeEnv,
    publicUrl: check(() => url(env, 'PUBLIC_URL', ['http:', 'https:']), undefined),
    calendarSyncInterval: check(() => int(env, 'CALENDAR_SYNC_INTERVAL', 300, 1, 86_400), 300),
    calendarSyncHorizonDays: check(() => int(env, 'CALENDAR_SYNC_HORIZON_DAYS', 180, 1, 3660), 180),
    calendarRequestTimeoutMs: check(() => int(env, 'CALENDAR_REQUEST_TIMEOUT_MS', 10_000, 100, 600_000), 10_000),
    calendarWriteAttempts: check(() => int(env, 'CALENDAR_WRITE_ATTEMPTS', 10, 1, 50), 10),
    retention: {
      eventsDays: check(() => int(env, 'RETENTION_DAYS_EVENTS', 30, 1, 36_500), 30),
      webhookDeliveriesDays: check(() => int(env, 'RETENTION_DAYS_WEBHOOK_DELIVERIES', 30, 1, 36_500), 30),
      emailsDays: check(() => int(env, 'RETENTION_DAYS_EMAILS', 30, 1, 36_500), 30),
      batchSize: check(() => int(env, 'RETENTION_BATCH_SIZE', 1000, 1, 10_000), 1000),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return config;
}
