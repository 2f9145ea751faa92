import client from 'prom-client';
import type { Pool } from './db/pool.ts';

/**
 * The process's Prometheus metrics (decisions.md §9; names and labels in docs/operations.md).
 * One registry per process: `serve` exposes it at GET /metrics; each process counts what it
 * did itself, and Prometheus sums the processes. Counters move after the change they count
 * has committed, never for a rolled-back attempt.
 */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

const registers = [registry];

/** Latency buckets for API requests: a cached availability answer takes about a millisecond. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequestDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'API requests by method, route pattern (e.g. /v1/bookings/:id) and status code',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: REQUEST_BUCKETS,
  registers,
});

export const bookingsCreated = new client.Counter({
  name: 'bookings_created_total',
  help: 'Bookings created (POST /bookings answered 201; replays of an Idempotency-Key not counted)',
  registers,
});

export const bookingTransitions = new client.Counter({
  name: 'booking_transitions_total',
  help: 'Booking status changes by the status entered (a create enters DRAFT; a reschedule enters RESCHEDULED and CANCELLED)',
  labelNames: ['to'] as const,
  registers,
});

export const bookingRouting = new client.Histogram({
  name: 'booking_routing_seconds',
  help: "From a booking's create to the commit of its routing (DRAFT -> SCHEDULED or PENDING_CONFIRMATION)",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers,
});

export const jobsFailed = new client.Counter({
  name: 'jobs_failed_total',
  help: 'Job attempts that failed (each is retried with backoff until its attempts run out), by task',
  labelNames: ['task'] as const,
  registers,
});

export const webhookAttempts = new client.Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: success (2xx), failure (another status, a network error or the 5 s timeout)',
  labelNames: ['outcome'] as const,
  registers,
});

export const webhookAttemptDuration = new client.Histogram({
  name: 'webhook_attempt_duration_seconds',
  help: 'Duration of a webhook delivery attempt, from the request to the answer or the failure',
  labelNames: ['outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers,
});

export const emails = new client.Counter({
  name: 'emails_total',
  help: 'Emails by outcome: sent (accepted by the SMTP server), logged (no SMTP_URL: written to the log), failed (an attempt failed; retried)',
  labelNames: ['outcome'] as const,
  registers,
});

export const calendarSyncs = new client.Counter({
  name: 'calendar_syncs_total',
  help: 'Calendar syncs by the status they ended in (SUCCESS, ERROR, NEEDS_REAUTH)',
  labelNames: ['status'] as const,
  registers,
});

/** Pools whose connections the gauges below report, by name (`api`, `worker`). */
const pools = new Map<string, Pool>();
/** The pool job_queue_depth is counted with; the last one given wins. */
let queuePool: Pool | undefined;

/** Reports a connection pool's use in the db_pool_* gauges under `name`. */
export function observePool(name: string, pool: Pool): void {
  pools.set(name, pool);
}

/** Counts the job queue with `pool` at each scrape (one indexed count). */
export function observeQueue(pool: Pool): void {
  queuePool = pool;
}

new client.Gauge({
  name: 'db_pool_connections_in_use',
  help: "Database connections checked out of the process's pool, by pool",
  labelNames: ['pool'] as const,
  registers,
  collect() {
    this.reset();
    for (const [name, pool] of pools) this.set({ pool: name }, pool.totalCount - pool.idleCount);
  },
});

new client.Gauge({
  name: 'db_pool_waiting_requests',
  help: "Queries waiting for a free connection of the process's pool, by pool",
  labelNames: ['pool'] as const,
  registers,
  collect() {
    this.reset();
    for (const [name, pool] of pools) this.set({ pool: name }, pool.waitingCount);
  },
});

new client.Gauge({
  name: 'job_queue_depth',
  help: 'Jobs due to run and not taken by a worker (attempts left), across every worker process',
  registers,
  async collect() {
    if (!queuePool) return;
    try {
      const { rows } = await queuePool.query<{ n: string }>(
        'select count(*) as n from graphile_worker._private_jobs where is_available and run_at <= now()',
      );
      this.set(Number(rows[0].n));
    } catch {
      // the database is away: the depth is unknown (NaN, not a 0 that would read as an empty
      // queue), and the rest of the scrape (the pools' waiting requests, the process) is what
      // an operator needs to see now, so it is not failed for this one figure
      this.set(Number.NaN);
    }
  },
});

/** The Prometheus text exposition of every metric. */
export async function exposition(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
