import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { MemoryFreeBusyCache } from '../../src/domain/availability/freebusy-cache.ts';
import { syncCalendar } from '../../src/domain/calendars/sync.ts';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { calendarSeed } from '../helpers/calendar-fixtures.ts';
import { MEMBERS } from '../helpers/fixtures.ts';
import { icsCorpus } from '../helpers/ics-corpus.ts';
import type { Radicale } from '../helpers/radicale.ts';
import { skipWithoutRadicale, startRadicale } from '../helpers/radicale.ts';

/**
 * The iCalendar conformance corpus end to end: every case that is one CalDAV resource is PUT to
 * a calendar of its own on a real Radicale, synced through CalDAV with the case's window (the
 * sync's clock and horizon chosen so that its window is the case's) and the case's zone as the
 * member's, and the busy blocks stored must be the ones worked out by hand.
 */
const DAY = 86_400_000;
const skip = skipWithoutRadicale();
const cases = icsCorpus().filter((c) => c.expected.caldav);

let radicale: Radicale;
let t: TestApp;

before(async () => {
  if (skip) return;
  radicale = await startRadicale({ users: { amara: 'amara-pw' } });
  for (const [i] of cases.entries()) await radicale.createCalendar('amara', `case${i}`);
  t = await startApp({
    seed: calendarSeed(
      cases.map((_, i) => ({
        id: `cal_case_${i}`,
        url: radicale.calendarUrl('amara', `case${i}`),
        username: 'amara',
        password: 'amara-pw',
        primary: false,
      })),
    ),
  });
});

after(async () => {
  await t?.close();
  await radicale?.stop();
});

describe('the iCalendar corpus through Radicale', { skip }, () => {
  it('has cases', () => assert.ok(cases.length >= 20, `${cases.length} CalDAV cases`));

  for (const [i, c] of cases.entries()) {
    it(`${c.name}: ${c.expected.case}`, async () => {
      await radicale.putEvent('amara', `case${i}`, `${c.name}.ics`, c.ics);
      const start = Date.parse(c.expected.window.start);
      const days = (Date.parse(c.expected.window.end) - start) / DAY;
      // the sync's window runs from the start of yesterday to the end of today + horizon
      const now = new Date(start + DAY + 12 * 3_600_000);
      await t.db.pool.query('update members set timezone = $1 where id = $2', [c.expected.zone, MEMBERS.amara]);
      const r = await syncCalendar(
        {
          db: t.db.pool,
          config: { ...t.config, calendarSyncHorizonDays: days - 2 },
          now: () => now,
          log: pino({ level: 'silent' }),
          freebusyCache: new MemoryFreeBusyCache(),
        },
        `cal_case_${i}`,
      );
      assert.equal(r.status, 'SUCCESS', r.error ?? '');
      assert.equal(r.events, c.expected.events, 'events');
      assert.equal(r.skipped, c.expected.skipped, 'skipped');
      const stored = await t.db.pool.query(
        'select start_time, end_time from calendar_busy where calendar_id = $1 order by start_time, end_time',
        [`cal_case_${i}`],
      );
      assert.deepEqual(
        stored.rows.map((b) => `${b.start_time.toISOString()} ${b.end_time.toISOString()}`),
        c.expected.busy.map((b) => `${new Date(b.start).toISOString()} ${new Date(b.end).toISOString()}`),
      );
    });
  }
});
