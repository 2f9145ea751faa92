import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { startCli } from '../helpers/cli.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { TEST_REDIS_URL, skipWithoutRedis } from '../helpers/redis.ts';
import { freePort } from '../helpers/ports.ts';

// Several `serve` processes on one database, each caching availability and free/busy answers:
// a booking made through one must not leave another offering the booked time (docs/scheduling.md,
// "The cache"). Without Redis each process keeps its own answers and hears of the others' booking
// changes through PostgreSQL; with Redis they share one store, which a process that caches nothing
// (FREEBUSY_CACHE=off) must still invalidate.

/** Amara (Europe/London, weekdays 09:00–17:00) on the intro call, a weekday at least a week ahead. */
function weekdayAhead(): string {
  const d = new Date(Date.now() + 8 * 86_400_000);
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

async function serveMany(t: TestApp, envs: Array<Record<string, string>>) {
  const ports = await Promise.all(envs.map(() => freePort()));
  const servers = envs.map((env, i) =>
    startCli(
      ['serve'],
      { DATABASE_URL: t.db.url, PORT: String(ports[i]), RATE_LIMIT_TEST_PER_MINUTE: '1000000', ...env },
      /booking service ready/,
    ),
  );
  await Promise.all(servers.map((s) => s.started));
  const get = async (i: number, path: string) => {
    const res = await fetch(`http://127.0.0.1:${ports[i]}${path}`, { headers: { authorization: `Bearer ${KEYS.secret}` } });
    return { status: res.status, cache: res.headers.get('x-cache'), body: (await res.json()) as Record<string, unknown> };
  };
  const book = async (i: number, start: string) => {
    const res = await fetch(`http://127.0.0.1:${ports[i]}/v1/bookings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        event_type_id: 'et_intro_call',
        requested_time: start,
        assign_to: MEMBERS.amara,
        attendee: { name: 'Ada Lovelace', email: 'ada@example.com' },
        custom_fields: { company: 'Analytical Engines' },
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const stop = async () => {
    for (const s of servers) s.child.kill('SIGTERM');
    await Promise.all(servers.map((s) => s.exited));
  };
  return { get, book, stop };
}

const day = weekdayAhead();
const AVAILABILITY = `/v1/availability?event_type_id=et_intro_call&start_date=${day}&end_date=${day}&assignedToId=${MEMBERS.amara}`;
const starts = (body: Record<string, unknown>) => (body.slots as Array<{ start: string }>).map((s) => s.start);
const freebusyAt = (start: string) =>
  `/v1/freebusy/${MEMBERS.amara}?start=${encodeURIComponent(start)}&end=${encodeURIComponent(new Date(Date.parse(start) + 3_600_000).toISOString())}&time_slot=60`;
const tileStatus = (body: Record<string, unknown>) => (body.slots as Array<{ status: string }>)[0]!.status;

describe('answers cached by several serve processes', async () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(async () => t?.close());

  it('without Redis: a booking through one process drops the answers another keeps, as soon as it hears of it', async () => {
    const servers = await serveMany(t, [{}, {}]);
    try {
      const offered = starts((await servers.get(1, AVAILABILITY)).body);
      assert.ok(offered.length > 4, `slots on ${day}: ${offered.length}`);
      const slot = offered[2]!;
      // process 1 now holds both answers in its memory
      assert.deepEqual(starts((await servers.get(1, AVAILABILITY)).body), offered);
      await servers.get(1, freebusyAt(slot));
      assert.equal((await servers.get(1, freebusyAt(slot))).cache, 'HIT');

      const booked = await servers.book(0, slot);
      assert.equal(booked.status, 201, JSON.stringify(booked.body));
      // the change reaches process 1 at its commit, through PostgreSQL; the answers' own 60 s
      // expiry was the only bound before
      const heardWithin = Date.now() + 5000;
      let now = starts((await servers.get(1, AVAILABILITY)).body);
      while (now.includes(slot) && Date.now() < heardWithin) {
        await new Promise((r) => setTimeout(r, 50));
        now = starts((await servers.get(1, AVAILABILITY)).body);
      }
      assert.ok(!now.includes(slot), `process 1 still offers ${slot}, booked through process 0`);
      const fb = await servers.get(1, freebusyAt(slot));
      assert.equal(tileStatus(fb.body), 'busy', JSON.stringify(fb.body));
      // and what it offers can be booked
      const next = now.find((s) => Date.parse(s) >= Date.parse(slot) + 3_600_000)!;
      assert.equal((await servers.book(1, next)).status, 201);
    } finally {
      await servers.stop();
    }
  });

  it(
    'with Redis: a booking through a process with FREEBUSY_CACHE=off drops the answers the others keep there',
    { skip: await skipWithoutRedis() },
    async () => {
      const redis = new Redis(TEST_REDIS_URL);
      const clear = async () => {
        const keys = await redis.keys('booking-service:freebusy:*');
        if (keys.length > 0) await redis.del(...keys);
      };
      await clear();
      const servers = await serveMany(t, [{ REDIS_URL: TEST_REDIS_URL }, { REDIS_URL: TEST_REDIS_URL, FREEBUSY_CACHE: 'off' }]);
      try {
        const offered = starts((await servers.get(0, AVAILABILITY)).body);
        const slot = offered.find((s) => Date.parse(s) >= Date.parse(offered[0]!) + 4 * 3_600_000)!;
        assert.ok(slot, `a slot four hours into ${day}`);
        await servers.get(0, freebusyAt(slot));
        assert.equal((await servers.get(0, freebusyAt(slot))).cache, 'HIT');

        const booked = await servers.book(1, slot);
        assert.equal(booked.status, 201, JSON.stringify(booked.body));
        // the shared store was invalidated before the 201: no wait
        assert.ok(!starts((await servers.get(0, AVAILABILITY)).body).includes(slot), `process 0 still offers ${slot}`);
        const fb = await servers.get(0, freebusyAt(slot));
        assert.equal(fb.cache, 'MISS');
        assert.equal(tileStatus(fb.body), 'busy');
      } finally {
        await servers.stop();
        await clear();
        redis.disconnect();
      }
    },
  );
});
