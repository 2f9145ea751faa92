import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseBusyChange } from '../../../src/db/busy-changes.ts';
import { applyBusyChange, forgetUnheardChanges } from '../../../src/domain/availability/announced-changes.ts';
import { CalendarBusyCache } from '../../../src/domain/availability/calendar-busy-cache.ts';
import type { FreeBusyCache } from '../../../src/domain/availability/freebusy-cache.ts';
import { MemoryFreeBusyCache } from '../../../src/domain/availability/freebusy-cache.ts';

/** What reached the cache: a shared store's invalidation, or a drop of this process's memory only. */
class Recording extends MemoryFreeBusyCache {
  calls: string[] = [];

  override async invalidate(ids: readonly string[]): Promise<void> {
    this.calls.push(`invalidate ${ids.join(',')}`);
    // (MemoryFreeBusyCache's invalidate is its dropLocal: not recorded as a second call)
    MemoryFreeBusyCache.prototype.dropLocal.call(this, ids);
  }

  override dropLocal(ids?: readonly string[]): void {
    this.calls.push(`dropLocal ${ids ? ids.join(',') : '*'}`);
    super.dropLocal(ids);
  }
}

const caches = () => {
  const freebusyCache = new Recording();
  const calendarBusy = new CalendarBusyCache();
  return { freebusyCache, calendarBusy } satisfies { freebusyCache: FreeBusyCache; calendarBusy: CalendarBusyCache };
};

it("reads the trigger's `holds:<id>` and a sync's comma-separated ids", () => {
  assert.deepEqual(parseBusyChange('holds:m1'), { kind: 'holds', memberIds: ['m1'] });
  assert.deepEqual(parseBusyChange('m1,m2'), { kind: 'calendar', memberIds: ['m1', 'm2'] });
  assert.deepEqual(parseBusyChange('holds:'), { kind: 'holds', memberIds: [] });
});

it("another process's booking change drops only what this process keeps for the member", async () => {
  const c = caches();
  await c.freebusyCache.set('m1', 'k', 1);
  await c.freebusyCache.set('m2', 'k', 2);
  applyBusyChange(c, { kind: 'holds', memberIds: ['m1'] });
  assert.deepEqual(c.freebusyCache.calls, ['dropLocal m1'], "the shared store is the changing process's to invalidate");
  assert.equal(await c.freebusyCache.get('m1', 'k'), undefined);
  assert.equal(await c.freebusyCache.get('m2', 'k'), 2);
});

it("a sync's change invalidates the answers everywhere (a sync in a worker invalidated nothing itself)", () => {
  const c = caches();
  applyBusyChange(c, { kind: 'calendar', memberIds: ['m1', 'm2'] });
  assert.deepEqual(c.freebusyCache.calls, ['invalidate m1,m2']);
  applyBusyChange(c, { kind: 'calendar', memberIds: [] });
  assert.equal(c.freebusyCache.calls.length, 1, 'an empty announcement does nothing');
});

it('listening again drops every answer kept in this process: what was announced meanwhile is unknown', async () => {
  const c = caches();
  await c.freebusyCache.set('m1', 'k', 1);
  await c.freebusyCache.set('m2', 'k', 2);
  forgetUnheardChanges(c);
  assert.deepEqual(c.freebusyCache.calls, ['dropLocal *']);
  assert.equal(c.freebusyCache.size(), 0);
});
