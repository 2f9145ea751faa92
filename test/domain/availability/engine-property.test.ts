import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import type { HostInput, SlotRules } from '../../../src/domain/availability/engine.ts';
import { combinedStarts, computeSlots, hostSlotStarts } from '../../../src/domain/availability/engine.ts';

/**
 * The engine against a deliberately naive oracle: every minute of the range is a candidate,
 * working hours come from luxon DateTime per local day, and busy time is checked minute by
 * minute. Engine and oracle must agree exactly.
 */

const MIN = 60_000;
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Auckland',
  'America/Los_Angeles',
  'Asia/Tokyo',
];
// Around the 2026 transitions of the zones above, where bugs live.
const BASES = ['2026-03-08', '2026-11-01', '2026-03-29', '2026-10-25', '2026-04-05', '2026-10-04', '2026-09-27', '2026-06-15'].map((d) =>
  Date.parse(`${d}T00:00:00Z`),
);
const DAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'];

/** Wall time → instant, independently of the engine: earliest matching instant, else luxon's gap shift. */
function oracleInstant(zone: string, date: DateTime, minuteOfDay: number): number {
  const base = DateTime.fromObject({ year: date.year, month: date.month, day: date.day }, { zone: 'UTC' }).plus({ minutes: minuteOfDay });
  const wall = { year: base.year, month: base.month, day: base.day, hour: base.hour, minute: base.minute };
  const guess = DateTime.fromObject(wall, { zone });
  const matches: number[] = [];
  for (const shift of [-120, -60, -30, 0, 30, 60, 120]) {
    const t = guess.toMillis() + shift * MIN;
    const local = DateTime.fromMillis(t, { zone });
    if (
      local.year === wall.year &&
      local.month === wall.month &&
      local.day === wall.day &&
      local.hour === wall.hour &&
      local.minute === wall.minute
    )
      matches.push(t);
  }
  return matches.length > 0 ? Math.min(...matches) : guess.toMillis();
}

function hhmm(m: number): string {
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

function oracleWindows(host: HostInput, from: number, to: number): { start: number; end: number; date: string }[] {
  const out: { start: number; end: number; date: string }[] = [];
  let d = DateTime.fromMillis(from, { zone: host.timezone }).startOf('day').minus({ days: 1 });
  const last = DateTime.fromMillis(to, { zone: host.timezone }).plus({ days: 1 });
  for (; d <= last; d = d.plus({ days: 1 })) {
    const weekday = DAYS[d.weekday - 1];
    const today: { start: number; end: number }[] = [];
    for (const r of host.workingHours) {
      if (!r.days.includes(weekday)) continue;
      const [sh, sm] = r.start.split(':').map(Number);
      const [eh, em] = r.end.split(':').map(Number);
      const start = oracleInstant(host.timezone, d, sh * 60 + sm);
      const end = oracleInstant(host.timezone, d, eh * 60 + em);
      if (end > start) today.push({ start, end });
    }
    today.sort((a, b) => a.start - b.start);
    const merged: { start: number; end: number }[] = [];
    for (const w of today) {
      const lastW = merged[merged.length - 1];
      if (lastW && w.start <= lastW.end) lastW.end = Math.max(lastW.end, w.end);
      else merged.push({ ...w });
    }
    for (const w of merged) out.push({ ...w, date: d.toISODate()! });
  }
  return out;
}

function oracleHost(host: HostInput, r: SlotRules): number[] {
  const windows = oracleWindows(host, r.from, r.to);
  const localDate = (t: number) => DateTime.fromMillis(t, { zone: host.timezone }).toISODate();
  const out: number[] = [];
  for (let s = Math.ceil(r.from / MIN) * MIN; s < r.to; s += MIN) {
    if (s < r.earliest) continue;
    const w = windows.find((x) => s >= x.start && s < x.end);
    if (!w || (s - w.start) % (r.slotInterval * MIN) !== 0 || s + r.duration * MIN > w.end) continue;
    const day = localDate(s);
    if (Array.from(host.bookingStarts).filter((b) => localDate(b) === day).length >= host.maxBookingsPerDay) continue;
    let blocked = false;
    for (let x = s - r.bufferBefore * MIN; x < s + (r.duration + r.bufferAfter) * MIN && !blocked; x += MIN) {
      blocked = host.busy.some((b) => Array.from(b.starts).some((start, k) => x >= start && x < b.ends[k]));
    }
    if (!blocked) out.push(s);
  }
  return out;
}

const minuteOf = (lo: number, hi: number) => fc.integer({ min: lo, max: hi });

const hostArb = (from: number, span: number) =>
  fc.record({
    id: fc.uuid(),
    timezone: fc.constantFrom(...ZONES),
    workingHours: fc.array(
      fc
        .record({ days: fc.subarray(DAYS, { minLength: 1 }), a: minuteOf(0, 288), b: minuteOf(0, 288) })
        .filter((x) => x.a !== x.b)
        .map((x) => ({ days: x.days, start: hhmm(Math.min(x.a, x.b) * 5), end: hhmm(Math.max(x.a, x.b) * 5) })),
      { minLength: 1, maxLength: 3 },
    ),
    maxBookingsPerDay: fc.integer({ min: 0, max: 4 }),
    // up to three sources (holds, out-of-office, calendars), each its own pair of arrays
    busy: fc.array(
      fc
        .array(fc.record({ s: minuteOf(-600, span + 600), len: minuteOf(1, 240) }), { maxLength: 5 })
        .map((list) => ({ starts: list.map((x) => from + x.s * MIN), ends: list.map((x) => from + (x.s + x.len) * MIN) })),
      { maxLength: 3 },
    ),
    bookingStarts: fc.array(
      minuteOf(-1440, span + 1440).map((m) => from + m * MIN),
      { maxLength: 6 },
    ),
  });

const caseArb = fc
  .record({ base: fc.constantFrom(...BASES), shift: minuteOf(-2880, 2880), span: minuteOf(60, 3 * 1440) })
  .chain(({ base, shift, span }) => {
    const from = base + shift * MIN;
    return fc.record({
      hosts: fc.array(hostArb(from, span), { minLength: 1, maxLength: 3 }),
      rules: fc.record({
        duration: fc.integer({ min: 5, max: 180 }),
        slotInterval: fc.integer({ min: 5, max: 120 }),
        bufferBefore: fc.integer({ min: 0, max: 60 }),
        bufferAfter: fc.integer({ min: 0, max: 60 }),
        from: fc.constant(from),
        to: fc.constant(from + span * MIN),
        earliest: minuteOf(-1440, span).map((m) => from + m * MIN),
      }),
    });
  });

describe('availability engine vs a minute-by-minute oracle', () => {
  it("each host: exactly the oracle's slot starts (inside working hours, clear of busy time, notice and cap)", () => {
    fc.assert(
      fc.property(caseArb, ({ hosts, rules }) => {
        for (const h of hosts) assert.deepEqual(hostSlotStarts(h, rules), oracleHost(h, rules));
      }),
      { numRuns: 150 },
    );
  });

  it('each host, its busy sources sorted by start (as busyOfMembers and the calendar cache give them): the same', () => {
    const byStart = (b: HostInput['busy'][number]) => {
      const order = Array.from(b.starts, (_, i) => i).sort((x, y) => b.starts[x] - b.starts[y]);
      return { starts: order.map((i) => b.starts[i]), ends: order.map((i) => b.ends[i]) };
    };
    fc.assert(
      fc.property(caseArb, ({ hosts, rules }) => {
        for (const h of hosts) assert.deepEqual(hostSlotStarts({ ...h, busy: h.busy.map(byStart) }, rules), oracleHost(h, rules));
      }),
      { numRuns: 150 },
    );
  });

  it('union lists every start some host can take, naming exactly those hosts; COLLECTIVE is the intersection', () => {
    fc.assert(
      fc.property(caseArb, ({ hosts, rules }) => {
        const each = hosts.map((h) => new Set(oracleHost(h, rules)));
        const union = computeSlots(hosts, rules, false);
        const expectedStarts = [...new Set(each.flatMap((s) => [...s]))].sort((a, b) => a - b);
        assert.deepEqual(
          union.map((s) => s.start),
          expectedStarts,
        );
        for (const slot of union) {
          assert.equal(slot.end - slot.start, rules.duration * MIN);
          assert.deepEqual(
            slot.memberIds,
            hosts.filter((_, i) => each[i].has(slot.start)).map((h) => h.id),
          );
        }
        const collective = computeSlots(hosts, rules, true);
        for (const slot of collective) for (const s of each) assert.ok(s.has(slot.start), 'COLLECTIVE ⊆ every host');
        assert.deepEqual(
          collective.map((s) => s.start),
          expectedStarts.filter((t) => each.every((s) => s.has(t))),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('combinedStarts is exact however many hosts there are (union: a bit per minute; intersection: a count per minute, in a byte up to 255 hosts, wider beyond)', () => {
    const from = Date.parse('2027-01-04T00:00:00Z');
    const rules = { from, to: from + 3 * 1440 * MIN };
    fc.assert(
      fc.property(
        fc.constantFrom(2, 254, 255, 256, 300),
        fc.uniqueArray(minuteOf(0, 3 * 1440 - 1), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 1000 }),
        (hostCount, shared, seed) => {
          // every host has the shared minutes, and some of its own
          let x = seed;
          const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
          const perHost = Array.from({ length: hostCount }, () => {
            const own = new Set(shared);
            for (let k = next() % 6; k > 0; k--) own.add(next() % (3 * 1440));
            return [...own].sort((a, b) => a - b).map((m) => from + m * MIN);
          });
          const union = [...new Set(perHost.flat())].sort((a, b) => a - b);
          const everyone = union.filter((t) => perHost.every((list) => list.includes(t)));
          assert.deepEqual(combinedStarts(perHost, rules, false), union);
          assert.deepEqual(combinedStarts(perHost, rules, true), everyone);
          assert.ok(everyone.length >= shared.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("GET /availability's starts from each host's own list equal computeSlots' starts", () => {
    fc.assert(
      fc.property(caseArb, ({ hosts, rules }) => {
        const perHost = hosts.map((h) => hostSlotStarts(h, rules));
        for (const collective of [false, true]) {
          assert.deepEqual(
            combinedStarts(perHost, rules, collective),
            computeSlots(hosts, rules, collective).map((s) => s.start),
          );
        }
      }),
      { numRuns: 100 },
    );
  });
});
