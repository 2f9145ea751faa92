import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { busyFromIcs } from '../../../src/domain/calendars/ics/busy.ts';
import { CORPUS_DIR, corpusOptions, icsCorpus } from '../../helpers/ics-corpus.ts';

/**
 * The conformance corpus, table-driven: each export must produce exactly the busy blocks worked
 * out by hand in its `.expected.json`, with the same counts of events, skipped and own events.
 */

const corpus = icsCorpus();

/** Every rule of docs/calendars.md "Busy time" must have a case in the corpus. */
const RULES = [
  'rrule-count',
  'rrule-until',
  'rrule-byday',
  'rrule-interval',
  'rrule-no-end',
  'rdate',
  'exdate',
  'override-moved',
  'override-cancelled',
  'thisandfuture',
  'allday',
  'multiday-allday',
  'allday-no-dtend',
  'no-dtend-datetime',
  'duration',
  'floating',
  'tzid-vtimezone-dst',
  'tzid-iana-no-vtimezone',
  'windows-tz-vtimezone',
  'windows-tz-no-vtimezone',
  'unknown-tz',
  'transparent',
  'cancelled',
  'tentative',
  'own-event',
  'foreign-booking-id',
  'unparseable',
  'clipping',
  'iteration-cap',
  'line-folding',
  'crlf',
  'lf',
];

describe('iCalendar corpus', () => {
  it('has at least 25 cases, each with its expectation, and a case for every rule', () => {
    assert.ok(corpus.length >= 25, `only ${corpus.length} cases`);
    const expectations = fs.readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.expected.json'));
    assert.equal(expectations.length, corpus.length, 'an .expected.json without its .ics');
    const covered = new Set(corpus.flatMap((c) => c.expected.covers));
    assert.deepEqual(
      RULES.filter((r) => !covered.has(r)),
      [],
      'rules without a case',
    );
    assert.deepEqual(
      [...covered].filter((r) => !RULES.includes(r)),
      [],
      'unknown rule tags',
    );
    for (const c of corpus) {
      const crlf = c.ics.includes('\r\n');
      assert.equal(c.expected.covers.includes('crlf'), crlf, `${c.name}: the crlf tag must match the file`);
      assert.equal(c.expected.covers.includes('lf'), !crlf, `${c.name}: the lf tag must match the file`);
    }
  });

  for (const c of corpus) {
    it(`${c.name}: ${c.expected.case}`, () => {
      const result = busyFromIcs(c.ics, corpusOptions(c));
      const blocks = result.blocks.map((b) => ({ start: b.start.toISOString(), end: b.end.toISOString(), uid: b.uid }));
      const expected = c.expected.busy.map((b) => ({ ...b, start: new Date(b.start).toISOString(), end: new Date(b.end).toISOString() }));
      assert.deepEqual(blocks, expected);
      assert.deepEqual(
        { events: result.events, skipped: result.skipped, own: result.own },
        { events: c.expected.events, skipped: c.expected.skipped, own: c.expected.own },
      );
      if (c.expected.skips) assert.deepEqual(result.skips, c.expected.skips);
      else assert.deepEqual(result.skips, []);
      const windowStart = new Date(c.expected.window.start).getTime();
      const windowEnd = new Date(c.expected.window.end).getTime();
      for (const b of result.blocks) {
        const inside = b.start.getTime() >= windowStart && b.end.getTime() <= windowEnd && b.start < b.end;
        assert.ok(inside, `${path.basename(c.file)}: block outside the window`);
      }
    });
  }
});
