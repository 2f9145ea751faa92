/**
 * A large calendar of realistic CalDAV resources, for load tests and benchmarks: each resource
 * is one VCALENDAR with one event (and its overrides), shaped as Google, Apple, Outlook and
 * Nextcloud write them, with their VTIMEZONEs. Deterministic for a given seed. A third of the
 * events recur weekly (some without an end, some with COUNT or UNTIL, some with an EXDATE or a
 * moved instance); the rest are single events, one in ten all-day.
 */

export interface SyntheticResource {
  uid: string;
  /** The resource's text, CRLF line ends. */
  ics: string;
  recurring: boolean;
}

export interface SyntheticOptions {
  /** Single events fall from 30 days before to 180 days after it; series start up to a year before it. */
  around: Date;
  seed?: number;
  /** Share of weekly recurring events (default 1/3). */
  recurringShare?: number;
}

const DAY_MS = 86_400_000;

const ZONES: Record<string, string[]> = {
  'America/New_York': [
    'BEGIN:VTIMEZONE',
    'TZID:America/New_York',
    'X-LIC-LOCATION:America/New_York',
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:-0500',
    'TZOFFSETTO:-0400',
    'TZNAME:EDT',
    'DTSTART:19700308T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
    'END:DAYLIGHT',
    'BEGIN:STANDARD',
    'TZOFFSETFROM:-0400',
    'TZOFFSETTO:-0500',
    'TZNAME:EST',
    'DTSTART:19701101T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
    'END:STANDARD',
    'END:VTIMEZONE',
  ],
  'Europe/Berlin': [
    'BEGIN:VTIMEZONE',
    'TZID:Europe/Berlin',
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:+0100',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
    'DTSTART:19810329T020000',
    'TZNAME:CEST',
    'TZOFFSETTO:+0200',
    'END:DAYLIGHT',
    'BEGIN:STANDARD',
    'TZOFFSETFROM:+0200',
    'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
    'DTSTART:19961027T030000',
    'TZNAME:CET',
    'TZOFFSETTO:+0100',
    'END:STANDARD',
    'END:VTIMEZONE',
  ],
  'W. Europe Standard Time': [
    'BEGIN:VTIMEZONE',
    'TZID:W. Europe Standard Time',
    'BEGIN:STANDARD',
    'DTSTART:16010101T030000',
    'TZOFFSETFROM:+0200',
    'TZOFFSETTO:+0100',
    'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    'DTSTART:16010101T020000',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0200',
    'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3',
    'END:DAYLIGHT',
    'END:VTIMEZONE',
  ],
};

const PRODIDS: Record<string, string> = {
  'America/New_York': '-//Google Inc//Google Calendar 70.9054//EN',
  'Europe/Berlin': '-//Apple Inc.//macOS 14.4//EN',
  'W. Europe Standard Time': 'Microsoft Exchange Server 2010',
};

/** mulberry32: a small seeded generator, so a run can be repeated exactly. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A wall time (ms, written as UTC) as an iCalendar local DATE-TIME. */
const local = (wall: number) => new Date(wall).toISOString().slice(0, 19).replace(/[-:]/g, '');
const date = (wall: number) => local(wall).slice(0, 8);

/** `count` resources; the same seed gives the same calendar. */
export function syntheticCalendar(count: number, options: SyntheticOptions): SyntheticResource[] {
  const rand = random(options.seed ?? 17);
  const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)];
  const around = Math.floor(options.around.getTime() / DAY_MS) * DAY_MS;
  const share = options.recurringShare ?? 1 / 3;
  const zones = Object.keys(ZONES);
  const out: SyntheticResource[] = [];
  for (let i = 0; i < count; i++) {
    const zone = zones[i % zones.length];
    const uid = `synthetic-${options.seed ?? 17}-${i}@example.com`;
    const recurring = rand() < share;
    const allDay = !recurring && rand() < 0.1;
    const startDay = recurring ? around - Math.floor(rand() * 365) * DAY_MS : around + Math.floor(rand() * 210 - 30) * DAY_MS;
    const start = startDay + (8 * 60 + Math.floor(rand() * 40) * 15) * 60_000;
    const length = (2 + Math.floor(rand() * 7)) * 15 * 60_000;
    const at = (wall: number) => `;TZID=${zone}:${local(wall)}`;
    const event = ['BEGIN:VEVENT', `UID:${uid}`, `DTSTAMP:${local(around)}Z`, `SUMMARY:Event ${i}`];
    if (allDay) event.push(`DTSTART;VALUE=DATE:${date(startDay)}`, `DTEND;VALUE=DATE:${date(startDay + DAY_MS)}`);
    else event.push(`DTSTART${at(start)}`, `DTEND${at(start + length)}`);
    event.push('TRANSP:OPAQUE', 'STATUS:CONFIRMED');
    const overrides: string[] = [];
    if (recurring) {
      const weekday = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'][(Math.floor(startDay / DAY_MS) + 3) % 7];
      const days = [weekday, ...(rand() < 0.4 ? [pick(['MO', 'TU', 'WE', 'TH', 'FR'])] : [])].filter((d, k, all) => all.indexOf(d) === k);
      const end = rand();
      let rule = `RRULE:FREQ=WEEKLY;BYDAY=${days.join(',')}`;
      if (end < 0.25) rule += `;COUNT=${10 + Math.floor(rand() * 50)}`;
      else if (end < 0.5) rule += `;UNTIL=${local(around + Math.floor(rand() * 260 - 60) * DAY_MS)}Z`;
      event.push(rule);
      if (rand() < 0.2) event.push(`EXDATE${at(start + 7 * DAY_MS * (1 + Math.floor(rand() * 40)))}`);
      if (rand() < 0.1) {
        const original = start + 7 * DAY_MS * (1 + Math.floor(rand() * 40));
        overrides.push('BEGIN:VEVENT', `UID:${uid}`, `DTSTAMP:${local(around)}Z`, `RECURRENCE-ID${at(original)}`);
        overrides.push(`DTSTART${at(original + 2 * 3_600_000)}`, `DTEND${at(original + 2 * 3_600_000 + length)}`, 'END:VEVENT');
      }
    }
    event.push('END:VEVENT');
    const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', `PRODID:${PRODIDS[zone]}`, ...ZONES[zone], ...event, ...overrides, 'END:VCALENDAR'];
    out.push({ uid, ics: `${lines.join('\r\n')}\r\n`, recurring });
  }
  return out;
}
