import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { IcsExpander } from '../../../src/domain/calendars/ics/expander.ts';
import { expandResource } from '../../../src/domain/calendars/ics/resource.ts';
import { icsCorpus } from '../../helpers/ics-corpus.ts';

/**
 * Calendar expansion on its own thread (docs/calendars.md, "Cost"): the same busy time as
 * expanding in place, while the main thread, which answers the API in `serve`, keeps running.
 */

const WINDOW = { start: new Date('2026-11-28T00:00:00Z'), end: new Date('2027-05-28T00:00:00Z') };

/** One event whose rule matches no date and stays under the expansion limits: about a second of CPU. */
const COSTLY = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//test//costly//EN',
  'BEGIN:VEVENT',
  'UID:costly@example.com',
  'DTSTAMP:20260101T000000Z',
  'DTSTART:19700101T100000Z',
  'DTEND:19700101T110000Z',
  'RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;BYDAY=MO',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

const ONE_HOUR = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//test//single//EN',
  'BEGIN:VEVENT',
  'UID:single@example.com',
  'DTSTAMP:20260101T000000Z',
  'DTSTART:20261201T100000Z',
  'DTEND:20261201T110000Z',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('calendar expansion on its own thread', () => {
  const expander = new IcsExpander();
  after(() => expander.close());

  it('gives every corpus case the busy time expanding it in place gives, in the order sent', async () => {
    const corpus = icsCorpus();
    const byZone = Map.groupBy(corpus, (c) => `${c.expected.zone} ${c.expected.window.start} ${c.expected.window.end}`);
    for (const cases of byZone.values()) {
      const window = { start: new Date(cases[0].expected.window.start), end: new Date(cases[0].expected.window.end) };
      const zone = cases[0].expected.zone;
      const own = new Set(['bk_own@booking-service']);
      const items = cases.map((c) => ({ href: `/cal/${c.name}.ics`, data: c.ics }));
      const got = await expander.expand(items, window, zone, own);
      assert.deepEqual(
        got,
        items.map((i) => expandResource(i.href, i.data, window, zone, own)),
      );
    }
    assert.ok(corpus.some((c) => c.expected.busy.length > 0));
  });

  it('counts text that is no iCalendar as one skipped event', async () => {
    const [r] = await expander.expand([{ href: '/cal/x.ics', data: 'not a calendar' }], WINDOW, 'UTC', new Set());
    assert.deepEqual(r, { href: '/cal/x.ics', events: 1, skipped: 1, starts: [], ends: [] });
  });

  it('keeps the main thread running while an event takes a second of CPU', async () => {
    // the same event in place holds the thread for its whole cost: that is what serve's API waited
    const inPlace = performance.now();
    expandResource('/cal/costly.ics', COSTLY, WINDOW, 'UTC', new Set());
    const cost = performance.now() - inPlace;
    assert.ok(cost >= 300, `the costly event took only ${cost.toFixed(0)} ms in place`);

    let last = performance.now();
    let longest = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    const began = performance.now();
    const [r] = await expander.expand([{ href: '/cal/costly.ics', data: COSTLY }], WINDOW, 'UTC', new Set());
    const took = performance.now() - began;
    clearInterval(tick);
    // the gap since the last tick counts too: a blocked thread may resume straight into this line
    longest = Math.max(longest, performance.now() - last);
    assert.equal(r.events, 1);
    assert.ok(took >= cost / 3, `expanded in ${took.toFixed(0)} ms, in place ${cost.toFixed(0)} ms`);
    assert.ok(longest < took / 4, `the main thread stopped for ${longest.toFixed(0)} ms of ${took.toFixed(0)} ms`);
  });

  it('answers concurrent requests each with its own resources', async () => {
    const [a, b] = await Promise.all([
      expander.expand([{ href: '/a.ics', data: ONE_HOUR }], WINDOW, 'UTC', new Set()),
      expander.expand(
        [
          { href: '/b1.ics', data: 'broken' },
          { href: '/b2.ics', data: ONE_HOUR },
        ],
        WINDOW,
        'UTC',
        new Set(),
      ),
    ]);
    assert.deepEqual(
      a.map((r) => [r.href, r.starts.map((d) => d.toISOString())]),
      [['/a.ics', ['2026-12-01T10:00:00.000Z']]],
    );
    assert.deepEqual(
      b.map((r) => [r.href, r.skipped, r.starts.length]),
      [
        ['/b1.ics', 1, 0],
        ['/b2.ics', 0, 1],
      ],
    );
    assert.deepEqual(await expander.expand([], WINDOW, 'UTC', new Set()), []);
  });
});

describe('a request past its time', () => {
  const expander = new IcsExpander({ timeoutMs: 200, idleMs: 50 });
  after(() => expander.close());

  it('fails alone: the thread is stopped, the next request gets a new one', async () => {
    const slow = expander.expand([{ href: '/costly.ics', data: COSTLY }], WINDOW, 'UTC', new Set());
    const queued = expander.expand([{ href: '/next.ics', data: ONE_HOUR }], WINDOW, 'UTC', new Set());
    await assert.rejects(slow, /calendar expansion took longer than 0.2 s/);
    const [next] = await queued;
    assert.equal(next.starts.length, 1);
  });

  it('starts a thread again after the idle one was stopped', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [r] = await expander.expand([{ href: '/again.ics', data: ONE_HOUR }], WINDOW, 'UTC', new Set());
    assert.equal(r.ends[0].toISOString(), '2026-12-01T11:00:00.000Z');
  });

  it('fails the requests still waiting when closed', async () => {
    const running = assert.rejects(expander.expand([{ href: '/costly.ics', data: COSTLY }], WINDOW, 'UTC', new Set()), /shutting down/);
    const waiting = assert.rejects(expander.expand([{ href: '/next.ics', data: ONE_HOUR }], WINDOW, 'UTC', new Set()), /shutting down/);
    await expander.close();
    await running;
    await waiting;
  });
});
