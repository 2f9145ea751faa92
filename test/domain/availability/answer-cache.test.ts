import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { CalendarBusyCache } from '../../../src/domain/availability/calendar-busy-cache.ts';
import { MemoryFreeBusyCache, NoFreeBusyCache, RedisFreeBusyCache } from '../../../src/domain/availability/freebusy-cache.ts';
import { availabilityBody } from '../../../src/domain/availability/get-availability.ts';
import { hostTokens } from '../../../src/domain/availability/answer-cache.ts';
import * as eventTypes from '../../../src/db/queries/event-types.ts';
import { loadSeed } from '../../../src/domain/seed/load.ts';
import { validateSeed } from '../../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createTestDatabase } from '../../helpers/db.ts';
import { MEMBERS, testSeed } from '../../helpers/fixtures.ts';
import { insertBooking } from './scheduling-fixtures.ts';
import { TEST_REDIS_URL, skipWithoutRedis } from '../../helpers/redis.ts';

// The cached GET /availability answer: invalidated through FreeBusyCache.invalidate, and the
// notice cut-off applied on every request, never frozen into the cache.
let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
  await loadSeed(db.pool, validateSeed(testSeed()));
});
after(async () => db?.drop());

const auth = { organizationId: 'org_northwind', mode: 'test' as const };
const q = { event_type_id: 'et_intro_call', start_date: '2026-11-24', end_date: '2026-11-24', assigned_to_id: MEMBERS.amara };
const starts = (body: Buffer) => (JSON.parse(body.toString()) as { slots: { start: string }[] }).slots.map((s) => s.start.slice(11, 16));
/** No answer cache: every answer is computed, and only the hosts an answer keeps can be stale. */
const NO_CACHE = new NoFreeBusyCache();
/** Amara's hours from noon only, as a change made in the database by hand would write them. */
const FROM_NOON = JSON.stringify([{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], start: '12:00', end: '17:00' }]);

describe('availability answer cache', async () => {
  it('serves the cached answer until a host is invalidated', async () => {
    const cache = new MemoryFreeBusyCache(() => 0);
    const now = new Date('2026-11-23T09:00:00Z');
    const before = starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, q, now));
    assert.ok(before.includes('10:00'));
    await insertBooking(db.pool, { eventTypeId: 'et_intro_call', memberIds: [MEMBERS.amara], start: '2026-11-24T10:00:00Z', minutes: 30 });
    assert.deepEqual(starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, q, now)), before, 'cached');
    await cache.invalidate([MEMBERS.jonas]);
    assert.deepEqual(
      starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, q, now)),
      before,
      'another member changed',
    );
    await cache.invalidate([MEMBERS.amara]);
    const after = starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, q, now));
    assert.ok(!after.includes('10:00'), 'the booking shows once its host is invalidated');
    // The same invalidation reaches answers naming several hosts (ROUND_ROBIN union).
    const both = { ...q, assigned_to_id: undefined };
    const union = JSON.parse((await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, both, now)).toString()).totalSlots;
    await insertBooking(db.pool, { eventTypeId: 'et_intro_call', memberIds: [MEMBERS.jonas], start: '2026-11-24T07:00:00Z', minutes: 30 });
    await cache.invalidate([MEMBERS.jonas]);
    const afterJonas = starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, both, now));
    assert.ok(!afterJonas.includes('07:00') && afterJonas.length < union);
  });

  it('reuses the slot starts of hosts whose token stands, recomputing only the dropped ones', async () => {
    const cache = new MemoryFreeBusyCache(() => 0);
    const now = new Date('2026-11-23T09:00:00Z');
    const day = { ...q, start_date: '2026-11-26', end_date: '2026-11-26' };
    const team = { ...day, assigned_to_id: undefined };
    const jonasOnly = { ...day, assigned_to_id: MEMBERS.jonas };
    const amaraOnly = { ...day, assigned_to_id: MEMBERS.amara };
    // The team's answer keeps each host's own starts; the one-host answers are other cache entries.
    await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, team, now);
    const amaraBefore = starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, amaraOnly, now));
    assert.ok(amaraBefore.includes('10:00'));
    await insertBooking(db.pool, { eventTypeId: 'et_intro_call', memberIds: [MEMBERS.jonas], start: '2026-11-26T07:00:00Z', minutes: 30 });
    await insertBooking(db.pool, { eventTypeId: 'et_intro_call', memberIds: [MEMBERS.amara], start: '2026-11-26T10:00:00Z', minutes: 30 });
    // Only Amara's booking is announced: Jonas's answer, never cached itself, is built from his kept starts.
    await cache.invalidate([MEMBERS.amara]);
    assert.ok(
      starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, jonasOnly, now)).includes('07:00'),
      'Jonas reused',
    );
    assert.ok(
      !starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, amaraOnly, now)).includes('10:00'),
      'Amara recomputed',
    );
    await cache.invalidate([MEMBERS.jonas]);
    assert.ok(
      !starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, jonasOnly, now)).includes('07:00'),
      'Jonas recomputed',
    );
  });

  it('shares one load among requests that miss the same host at once', async () => {
    const cache = new MemoryFreeBusyCache(() => 0);
    const now = new Date('2026-11-23T09:00:00Z');
    const day = { ...q, start_date: '2026-11-30', end_date: '2026-11-30' };
    // the hosts' busy reads wait at a gate, so the second request comes while the first one's is out
    let busyReads = 0;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const pool = db.pool;
    const BUSY_READ = 'from member_busy_days'; // how the gate knows busyOfMembers' statement over a range of days
    const gated = new Proxy(pool, {
      get(target, prop) {
        if (prop !== 'query') return Reflect.get(target, prop, target);
        return async (config: { text?: string }, values?: unknown[]) => {
          if (typeof config === 'object' && config.text?.includes(BUSY_READ)) {
            busyReads++;
            await gate;
          }
          return pool.query(config as never, values as never);
        };
      },
    });
    const first = availabilityBody(gated, cache, new CalendarBusyCache(), auth, { ...day, assigned_to_id: undefined }, now);
    for (let waited = 0; busyReads === 0; waited += 5) {
      // fail here, not at the run's timeout, when that text no longer names the read
      assert.ok(waited < 5_000, `no busy read reached the gate in 5 s: does '${BUSY_READ}' still name busyOfMembers' read?`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const second = availabilityBody(gated, cache, new CalendarBusyCache(), auth, day, now);
    await new Promise((r) => setTimeout(r, 200));
    open();
    const [team, amara] = await Promise.all([first, second]);
    assert.equal(busyReads, 1, 'one read of the hosts for both requests');
    assert.ok(starts(amara).length > 0 && starts(team).length >= starts(amara).length);
  });

  it('applies now + minimum notice to a cached answer on every request', async () => {
    const cache = new MemoryFreeBusyCache(() => 0);
    const early = starts(
      await availabilityBody(
        db.pool,
        cache,
        new CalendarBusyCache(),
        auth,
        { ...q, start_date: '2026-11-25', end_date: '2026-11-25' },
        new Date('2026-11-25T06:00:00Z'),
      ),
    );
    assert.equal(early[0], '09:00');
    // 120 minutes of notice at 10:05 leaves 12:15 as the first start, from the same cache entry.
    const later = starts(
      await availabilityBody(
        db.pool,
        cache,
        new CalendarBusyCache(),
        auth,
        { ...q, start_date: '2026-11-25', end_date: '2026-11-25' },
        new Date('2026-11-25T10:05:00Z'),
      ),
    );
    assert.equal(later[0], '12:15');
    assert.deepEqual(
      later,
      early.filter((s) => s >= '12:15'),
    );
  });

  it("never reads an answer the previous release cached in another shape (a rolling deploy's shared cache)", async () => {
    const cache = new MemoryFreeBusyCache(() => 0);
    const day = { ...q, start_date: '2026-11-26', end_date: '2026-11-26' };
    const now = new Date('2026-11-23T09:00:00Z');
    const want = starts(await availabilityBody(db.pool, new MemoryFreeBusyCache(() => 0), new CalendarBusyCache(), auth, day, now));
    // what the release before kept, under its key (no shape in it): a start at noon with its JSON
    const type = (await eventTypes.findVisibleWithHosts(db.pool, auth.organizationId, q.event_type_id))!;
    const [token] = await hostTokens(cache, [MEMBERS.amara]);
    const from = Date.parse('2026-11-26T00:00:00Z');
    const parts = [auth.mode, type.id, type.updated_at.getTime(), type.schedule_version, from, from + 86_400_000, 1];
    await cache.set(MEMBERS.amara, `availability|${parts.join('|')}|${token}`, {
      starts: [from + 43_200_000],
      json: ['{"start":"stale"}'],
    });
    assert.deepEqual(starts(await availabilityBody(db.pool, cache, new CalendarBusyCache(), auth, day, now)), want);
  });

  const computed = async () =>
    starts(await availabilityBody(db.pool, NO_CACHE, new CalendarBusyCache(), auth, q, new Date('2026-11-23T09:00:00Z')));
  const amaraHours = async (): Promise<unknown> =>
    (await db.pool.query('select working_hours from members where id = $1', [MEMBERS.amara])).rows[0].working_hours;
  const setAmaraHours = (hours: unknown) =>
    db.pool.query('update members set working_hours = $2 where id = $1', [
      MEMBERS.amara,
      typeof hours === 'string' ? hours : JSON.stringify(hours),
    ]);

  it("reads the hosts again when the event type's updated_at or the organization's schedule_version moves", async () => {
    const before = await computed();
    assert.ok(before.some((x) => x < '12:00'));
    const hours = await amaraHours();
    try {
      // changed by hand, neither version moved: the kept hosts stand (for at most 60 s)
      await setAmaraHours(FROM_NOON);
      assert.deepEqual(await computed(), before);
      await db.pool.query(`update organizations set schedule_version = schedule_version + 1 where id = 'org_northwind'`);
      assert.deepEqual(
        await computed(),
        before.filter((x) => x >= '12:00'),
      );
      await setAmaraHours(hours);
      assert.deepEqual(
        await computed(),
        before.filter((x) => x >= '12:00'),
        'kept again',
      );
      await db.pool.query(`update event_types set updated_at = now() where id = 'et_intro_call'`);
      assert.deepEqual(await computed(), before);
    } finally {
      await setAmaraHours(hours);
    }
  });

  it('reads the hosts again 60 s after it read them, when neither version moved', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2030-01-01T00:00:00Z') });
    // a type updated_at no answer has read yet: this test's first answer reads the hosts
    await db.pool.query(`update event_types set updated_at = now() where id = 'et_intro_call'`);
    const before = await computed();
    assert.ok(before.some((x) => x < '12:00'));
    const hours = await amaraHours();
    try {
      await setAmaraHours(FROM_NOON);
      t.mock.timers.tick(59_000);
      assert.deepEqual(await computed(), before, 'kept for 59 s');
      t.mock.timers.tick(1_000);
      assert.deepEqual(
        await computed(),
        before.filter((x) => x >= '12:00'),
        'read again at 60 s',
      );
    } finally {
      await setAmaraHours(hours);
      // and the next answers read them again (the hosts kept here were read at a mocked time)
      await db.pool.query(`update event_types set updated_at = now() where id = 'et_intro_call'`);
    }
  });

  it('works the same through the Redis cache shared by processes', { skip: await skipWithoutRedis() }, async () => {
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    const prefix = `test:answers:${Date.now()}`;
    try {
      const apiProcess = new RedisFreeBusyCache(redis, prefix);
      const workerProcess = new RedisFreeBusyCache(redis, prefix);
      const now = new Date('2026-11-23T09:00:00Z');
      const day = { ...q, start_date: '2026-11-27', end_date: '2026-11-27' };
      const first = starts(await availabilityBody(db.pool, apiProcess, new CalendarBusyCache(), auth, day, now));
      assert.ok(first.includes('11:00'));
      await insertBooking(db.pool, {
        eventTypeId: 'et_intro_call',
        memberIds: [MEMBERS.amara],
        start: '2026-11-27T11:00:00Z',
        minutes: 30,
      });
      assert.deepEqual(
        starts(await availabilityBody(db.pool, apiProcess, new CalendarBusyCache(), auth, day, now)),
        first,
        'cached in Redis',
      );
      await workerProcess.invalidate([MEMBERS.amara]);
      assert.ok(!starts(await availabilityBody(db.pool, apiProcess, new CalendarBusyCache(), auth, day, now)).includes('11:00'));
    } finally {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });
});
