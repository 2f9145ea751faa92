import fs from 'node:fs';
import path from 'node:path';
import type { BusyOptions, SkipReason } from '../../src/domain/calendars/ics/busy.ts';

/**
 * The iCalendar conformance corpus (test/fixtures/ics): real-world-shaped exports, each with the
 * busy time it must produce, worked out by hand (the `notes` of each case say how). The parser
 * test runs it table-driven; a CalDAV test can PUT each `caldav: true` case as one resource of a
 * real server and expect the same blocks after a sync.
 */

export const CORPUS_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'ics');

export interface ExpectedBlock {
  /** ISO 8601 in UTC. */
  start: string;
  end: string;
  uid: string;
}

export interface IcsExpected {
  /** The client or server whose export the file is shaped after. */
  source: string;
  /** What the case is about. */
  case: string;
  /** Tags of the rules the case exercises (the corpus test checks every rule has one). */
  covers: string[];
  window: { start: string; end: string };
  /** The member's IANA zone. */
  zone: string;
  /**
   * Whether the file is one CalDAV resource (one UID: a master and its overrides) that a CalDAV
   * server stores and serves back with the same busy time: every `true` case was PUT to Radicale
   * 3.1 (201) and read back to the same blocks. False for whole-calendar files, broken ones, and
   * the few real-world shapes Radicale refuses or rewrites (the case's notes say which).
   */
  caldav: boolean;
  /** The organization's meetings among the file's UIDs, as the sync's lookup would find them. */
  ownUids?: string[];
  events: number;
  skipped: number;
  own: number;
  skips?: { uid: string | null; reason: SkipReason }[];
  /** How the expected blocks were worked out. */
  notes: string;
  /** Sorted by start, then end. */
  busy: ExpectedBlock[];
}

export interface IcsCase {
  /** File name without `.ics`. */
  name: string;
  /** Absolute path of the `.ics` file. */
  file: string;
  /** The file's exact text (CRLF kept). */
  ics: string;
  expected: IcsExpected;
}

/** Every case of the corpus, sorted by name. */
export function icsCorpus(): IcsCase[] {
  return fs
    .readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.ics'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.ics'.length);
      const file = path.join(CORPUS_DIR, f);
      const expected = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, `${name}.expected.json`), 'utf8')) as IcsExpected;
      return { name, file, ics: fs.readFileSync(file, 'utf8'), expected };
    });
}

/** The options a case is read with. */
export function corpusOptions(c: IcsCase): BusyOptions {
  return {
    windowStart: new Date(c.expected.window.start),
    windowEnd: new Date(c.expected.window.end),
    zone: c.expected.zone,
    ownUids: new Set(c.expected.ownUids ?? []),
  };
}
