import { loadConfig } from '../../src/config.ts';
import { createPool } from '../../src/db/pool.ts';
import { MemoryFreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import { MemoryRateLimitStore } from '../../src/http/rate-limit-store.ts';
import { CalendarBusyCache } from '../../src/domain/availability/calendar-busy-cache.ts';
import { buildServer } from '../../src/http/server.ts';

/** The service's OpenAPI document as GET /v1/openapi.json serves it, built without a database. */
export async function openapiDocument(): Promise<Record<string, unknown>> {
  // The pool connects on first query only; building the routes runs none.
  const db = createPool('postgres://unused@127.0.0.1:9/unused', 1);
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: 'postgres://unused@127.0.0.1:9/unused' });
  const app = await buildServer({
    deps: {
      db,
      config,
      now: () => new Date(),
      freebusyCache: new MemoryFreeBusyCache(() => Date.now()),
      calendarBusy: new CalendarBusyCache(),
    },
    rateLimitStore: new MemoryRateLimitStore(),
    logger: false,
  });
  try {
    await app.ready();
    return JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
  } finally {
    await app.close();
    await db.end();
  }
}
