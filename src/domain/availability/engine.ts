import { countPerBucket } from './intervals.ts';
import type { Window, WorkingHoursRule } from './working-windows.ts';
import { workingWindows } from './working-windows.ts';
import type { ZoneDays } from './zone-days.ts';
import { DAY_MS, MINUTE_MS, zoneDays } from './zone-days.ts';

/**
 * The slot engine: pure functions over sorted intervals, no database, no clock. The rules it
 * applies are listed in docs/scheduling.md; find-slots.ts feeds it from the database.
 */

/**
 * Busy intervals [starts[i], ends[i]) in epoch milliseconds, as two arrays in step, in any order:
 * one source's (a member's holds, out-of-office or calendar blocks) as it was read, so that the
 * thousands of intervals of an uncached answer are never made into objects one by one.
 */
export interface BusyTimes {
  starts: ArrayLike<number>;
  ends: ArrayLike<number>;
}

export interface HostInput {
  id: string;
  timezone: string;
  workingHours: readonly WorkingHoursRule[];
  maxBookingsPerDay: number;
  /** Active bookings (already widened by their own type's buffers), out-of-office and calendar blocks, a part per source. */
  busy: readonly BusyTimes[];
  /** Start instants of the member's active bookings, for the daily cap; any order. */
  bookingStarts: ArrayLike<number>;
}

export interface SlotRules {
  /** minutes */
  duration: number;
  slotInterval: number;
  bufferBefore: number;
  bufferAfter: number;
  /** Slot starts lie in [from, to) and are at or after `earliest` (now + minimum notice). */
  from: number;
  to: number;
  earliest: number;
}

export interface EngineSlot {
  start: number;
  end: number;
  memberIds: string[];
}

/**
 * Scratch arrays the engine reuses from call to call, grown when a call needs more: it runs to
 * the end of each call without yielding, so no two calls share them at once. An uncached answer
 * would otherwise allocate four arrays per host and one over every minute of its range, and the
 * collections they cause were part of its cost.
 */
let scratchS = new Float64Array(256);
let scratchE = new Float64Array(256);
let scratchStarts = new Float64Array(256);
let scratchEnds = new Float64Array(256);
/** Hosts per minute, for more than 255 hosts; all zero between uses (combinedStarts clears what it counted). */
let scratchCounts = new Int32Array(0);
/** The same a byte per minute, and as words of four minutes; all zero between uses too. */
let scratchMinutes = new Uint8Array(0);
let scratchWords = new Uint32Array(0);
/** A bit per minute, for the union; all zero between uses too. */
let scratchBits = new Int32Array(0);
/** A host's slot starts as hostSlotStarts finds them, before they are copied out. */
let scratchOut = new Float64Array(1024);

/**
 * Busy intervals joined (overlapping or touching), as two parallel arrays the slot loop scans
 * cheaply: the first `n` entries of the engine's scratch arrays, valid until the next call.
 *
 * The sources come sorted by start as a rule (a member's holds from busyOfMembers, calendar
 * blocks from CalendarBusyCache): their union is then one pass that takes the earliest next start
 * of the sources and keeps the latest end so far, with no sort. Otherwise, since the union depends
 * only on the multisets of starts and ends (coverage at x is #starts <= x minus #ends <= x), starts
 * and ends are each sorted on their own with a typed-array sort and swept together. Those two
 * sorts per host were the largest native cost of the availability bench's server with every cache
 * off; without them its 20 hosts' pass took 88 against 130 µs in-process (2026-11-28).
 */
function mergedBusy(parts: readonly BusyTimes[]): { starts: Float64Array; ends: Float64Array; n: number } {
  let total = 0;
  let sorted = true;
  let filled = 0; // sources with intervals
  let only = parts[0];
  for (const part of parts) {
    if (part.starts.length === 0) continue;
    total += part.starts.length;
    filled++;
    only = part;
    if (sorted && !isAscending(part.starts)) sorted = false;
  }
  if (scratchS.length < total) {
    const size = Math.max(total, scratchS.length * 2);
    [scratchS, scratchE, scratchStarts, scratchEnds] = [0, 1, 2, 3].map(() => new Float64Array(size));
  }
  if (!sorted) return mergedAnyOrder(parts);
  // a host's calendars with no block in the window leave an empty source beside its holds
  return mergedSorted(filled === 1 ? [only] : parts);
}

/** mergedBusy of sources each sorted by start: a merge of the sources, joining as it goes. */
function mergedSorted(parts: readonly BusyTimes[]): { starts: Float64Array; ends: Float64Array; n: number } {
  const starts = scratchStarts;
  const ends = scratchEnds;
  let n = 0;
  if (parts.length === 1) {
    // one source (a host with holds alone, or with no calendar block in the window: the usual
    // case): no choosing between sources
    const { starts: s, ends: e } = parts[0];
    for (let i = 0; i < s.length; i++) {
      if (e[i] <= s[i]) continue;
      if (n > 0 && s[i] <= ends[n - 1]) {
        if (e[i] > ends[n - 1]) ends[n - 1] = e[i];
      } else {
        starts[n] = s[i];
        ends[n++] = e[i];
      }
    }
    return { starts, ends, n };
  }
  const next = parts.map(() => 0); // each source's next interval
  for (;;) {
    let from = -1; // the source whose next interval starts first
    let earliest = Infinity;
    for (let p = 0; p < parts.length; p++) {
      const i = next[p];
      if (i < parts[p].starts.length && parts[p].starts[i] < earliest) {
        earliest = parts[p].starts[i];
        from = p;
      }
    }
    if (from < 0) break;
    const end = parts[from].ends[next[from]++];
    if (end <= earliest) continue; // empty
    // a start at or before the latest end joins it, so touching intervals join
    if (n > 0 && earliest <= ends[n - 1]) {
      if (end > ends[n - 1]) ends[n - 1] = end;
    } else {
      starts[n] = earliest;
      ends[n++] = end;
    }
  }
  return { starts, ends, n };
}

/** mergedBusy of sources in any order: starts and ends sorted apart and swept together. */
function mergedAnyOrder(parts: readonly BusyTimes[]): { starts: Float64Array; ends: Float64Array; n: number } {
  const s = scratchS;
  const e = scratchE;
  let m = 0;
  for (const { starts, ends } of parts) {
    for (let i = 0; i < starts.length; i++) {
      if (ends[i] <= starts[i]) continue;
      s[m] = starts[i];
      e[m] = ends[i];
      m++;
    }
  }
  const ss = s.subarray(0, m).sort();
  const es = e.subarray(0, m).sort();
  const starts = scratchStarts;
  const ends = scratchEnds;
  let n = 0;
  let depth = 0;
  let a = 0;
  let b = 0;
  while (a < m) {
    // A start at the same instant as an end comes first, so touching intervals join.
    if (ss[a] <= es[b]) {
      if (depth++ === 0) starts[n] = ss[a];
      a++;
    } else {
      if (--depth === 0) ends[n++] = es[b];
      b++;
    }
  }
  if (m > 0) ends[n++] = es[m - 1];
  return { starts, ends, n };
}

function isAscending(values: ArrayLike<number>): boolean {
  for (let i = 1; i < values.length; i++) if (values[i - 1] > values[i]) return false;
  return true;
}

function ascending(values: ArrayLike<number>): ArrayLike<number> {
  return isAscending(values) ? values : Float64Array.from(values).sort();
}

/** Every slot start one host can take, ascending. */
export function hostSlotStarts(host: HostInput, rules: SlotRules, days?: ZoneDays, knownWindows?: readonly Window[]): number[] {
  if (rules.to <= rules.from || host.maxBookingsPerDay <= 0) return [];
  const zd = days ?? zoneDays(host.timezone, rules.from, rules.to);
  const windows = knownWindows ?? workingWindows(host.workingHours, zd);
  if (windows.length === 0) return [];
  const perDay = countPerBucket(ascending(host.bookingStarts), zd.starts);
  const { starts: bs, ends: be, n } = mergedBusy(host.busy);
  const D = rules.duration * MINUTE_MS;
  const I = rules.slotInterval * MINUTE_MS;
  const before = rules.bufferBefore * MINUTE_MS;
  const after = rules.bufferAfter * MINUTE_MS;
  const lowest = Math.max(rules.from, rules.earliest);
  let out = scratchOut;
  let k = 0;
  let j = 0;
  for (const w of windows) {
    if (w.end <= lowest || w.start >= rules.to) continue;
    if (perDay[w.day] >= host.maxBookingsPerDay) continue;
    // The grid is anchored at the window start; skip straight to the first start >= lowest.
    let s = w.start + Math.max(0, Math.ceil((lowest - w.start) / I)) * I;
    const lastStart = Math.min(w.end - D, rules.to - 1);
    while (s <= lastStart) {
      while (j < n && be[j] <= s - before) j++;
      if (j < n && bs[j] < s + D + after) {
        // Blocked: jump to the first grid start whose buffered interval clears this busy block.
        s = w.start + Math.ceil((be[j] + before - w.start) / I) * I;
        continue;
      }
      // Free up to the next busy block: every grid start that ends (with buffer) before it is a slot.
      const limit = j < n ? Math.min(lastStart, bs[j] - D - after) : lastStart;
      for (; s <= limit; s += I) {
        if (k === out.length) {
          scratchOut = new Float64Array(out.length * 2);
          scratchOut.set(out);
          out = scratchOut;
        }
        out[k++] = s;
      }
    }
  }
  return exact(out, k);
}

/**
 * The first n numbers of a scratch array as an array of their own, allocated once at its size:
 * pushing onto an empty array grew it several times over, about three times the memory of the
 * result (a host's starts, an answer's), and the collections that caused were a large part of an
 * answer computed with every cache off.
 */
function exact(values: Float64Array, n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = values[i];
  return out;
}

/**
 * Slots of an event type over its hosts: the union for SOLO and ROUND_ROBIN (each slot names
 * the hosts free for it), the intersection for COLLECTIVE (every host must be free).
 */
export function computeSlots(hosts: readonly HostInput[], rules: SlotRules, collective: boolean): EngineSlot[] {
  return combineSlots(
    hosts.map((h) => h.id),
    hostsSlotStarts(hosts, rules),
    rules,
    collective,
  );
}

/**
 * Local days and working windows, by range, then zone (and hours), kept from call to call: they
 * are pure functions of those, the same for every answer over the same dates, and computing them
 * again (time-zone arithmetic for each day of each schedule) was a few percent of an answer
 * computed with every cache off. Found by range once per call, then by the hosts' own zone and
 * hours strings, which keep their hashes from call to call (a key joined per host was hashed
 * anew each time: a sixth of the engine's pass). Read only, by every caller. Emptied when it
 * holds CALENDAR_MEMO_MAX entries. Only ranges of a day or more are kept: a booking's check asks
 * for its one start, a range no other call asks for again.
 */
interface RangeMemo {
  /** kept from call to call (counted against CALENDAR_MEMO_MAX), or this call's own */
  kept: boolean;
  days: Map<string, ZoneDays>;
  /** by zone, then hours (hoursKey) */
  windows: Map<string, Map<string, Window[]>>;
}
const rangesMemo = new Map<string, RangeMemo>();
let calendarMemoEntries = 0;
const CALENDAR_MEMO_MAX = 2_000;

function rangeMemo(rules: SlotRules): RangeMemo {
  if (rules.to - rules.from < DAY_MS) return { kept: false, days: new Map(), windows: new Map() };
  const range = `${rules.from}|${rules.to}`;
  let memo = rangesMemo.get(range);
  if (memo === undefined) rangesMemo.set(range, (memo = { kept: true, days: new Map(), windows: new Map() }));
  return memo;
}

function remembered<K, T>(kept: boolean, memo: Map<K, T>, key: K, make: () => T): T {
  let value = memo.get(key);
  if (value === undefined) {
    if (kept && ++calendarMemoEntries > CALENDAR_MEMO_MAX) {
      rangesMemo.clear(); // the maps in hand stay whole for this call
      calendarMemoEntries = 1;
    }
    memo.set(key, (value = make()));
  }
  return value;
}

/**
 * Working hours as a memo key, made once per hours object: GET /availability hands the engine
 * the same schedule objects while an event type's hosts stay unchanged (get-availability.ts), and
 * writing each host's hours out again for every answer was a tenth of the engine's pass.
 */
const hoursKeys = new WeakMap<readonly WorkingHoursRule[], string>();

function hoursKey(hours: readonly WorkingHoursRule[]): string {
  let key = hoursKeys.get(hours);
  if (key === undefined) hoursKeys.set(hours, (key = JSON.stringify(hours)));
  return key;
}

/** hostSlotStarts of each host, in order; hosts in one zone share its days, and hosts with the same hours their windows. */
export function hostsSlotStarts(hosts: readonly HostInput[], rules: SlotRules): number[][] {
  const { kept, days, windows } = rangeMemo(rules);
  return hosts.map((h) => {
    const zd = remembered(kept, days, h.timezone, () => zoneDays(h.timezone, rules.from, rules.to));
    const zoneWindows = remembered(kept, windows, h.timezone, () => new Map<string, Window[]>());
    const hours = remembered(kept, zoneWindows, hoursKey(h.workingHours), () => workingWindows(h.workingHours, zd));
    return hostSlotStarts(h, rules, zd, hours);
  });
}

/**
 * The slots of hosts (ids in host order) from each host's own starts (hostSlotStarts, which
 * depends on that host alone: GET /availability keeps them per host). The lists are only read.
 */
export function combineSlots(
  ids: readonly string[],
  perHost: readonly (readonly number[])[],
  rules: SlotRules,
  collective: boolean,
): EngineSlot[] {
  if (ids.length === 0) return [];
  const D = rules.duration * MINUTE_MS;
  if (ids.length === 1) {
    const one = [ids[0]];
    return perHost[0].map((start) => ({ start, end: start + D, memberIds: one }));
  }
  if (collective) {
    const allIds = [...ids];
    let common = perHost[0];
    for (let k = 1; k < perHost.length && common.length > 0; k++) common = intersectSorted(common, perHost[k]);
    return common.map((start) => ({ start, end: start + D, memberIds: allIds }));
  }
  return unionWithHosts(ids, perHost, D, rules.from, rules.to);
}

/**
 * The starts alone of combineSlots (GET /availability lists no hosts), ascending: the union of
 * the hosts' ascending lists, or for COLLECTIVE their intersection. Starts are whole minutes in
 * [from, to), so this marks (union) or counts (intersection) hosts per minute rather than merging
 * lists.
 */
export function combinedStarts(
  perHost: readonly (readonly number[])[],
  rules: Pick<SlotRules, 'from' | 'to'>,
  collective: boolean,
): number[] {
  if (perHost.length === 0) return [];
  if (perHost.length === 1) return [...perHost[0]];
  const base = Math.floor(rules.from / MINUTE_MS) * MINUTE_MS;
  const size = Math.ceil((rules.to - base) / MINUTE_MS) + 1;
  if (!collective) return unionOfStarts(perHost, base, size);
  const need = perHost.length;
  // index loops, not for-of: this runs over every host's every start
  if (perHost.length > 255) {
    if (scratchCounts.length < size) scratchCounts = new Int32Array(Math.max(size, scratchCounts.length * 2));
    const hosts = scratchCounts;
    for (let h = 0; h < perHost.length; h++) {
      const list = perHost[h];
      for (let i = 0; i < list.length; i++) hosts[(list[i] - base) / MINUTE_MS]++;
    }
    let count = 0;
    for (let m = 0; m < size; m++) if (hosts[m] >= need) count++;
    const out = new Array<number>(count);
    for (let m = 0, k = 0; m < size; m++) if (hosts[m] >= need) out[k++] = base + m * MINUTE_MS;
    hosts.fill(0, 0, size);
    return out;
  }
  // A byte per minute, read four minutes at a time: most minutes start no slot (the bench's answer
  // lists 450 of 20,000), and a zero word skips four of them at once.
  const words = Math.ceil(size / 4);
  if (scratchMinutes.length < words * 4) {
    scratchMinutes = new Uint8Array(Math.max(words, scratchWords.length * 2) * 4);
    scratchWords = new Uint32Array(scratchMinutes.buffer);
  }
  const hosts = scratchMinutes;
  const quad = scratchWords;
  for (let h = 0; h < perHost.length; h++) {
    const list = perHost[h];
    for (let i = 0; i < list.length; i++) hosts[(list[i] - base) / MINUTE_MS]++;
  }
  // counted first, so that the answer is allocated once at its size
  let count = 0;
  for (let w = 0; w < words; w++) {
    if (quad[w] === 0) continue;
    for (let m = w * 4; m < w * 4 + 4; m++) if (hosts[m] >= need) count++;
  }
  const out = new Array<number>(count);
  for (let w = 0, k = 0; w < words; w++) {
    if (quad[w] === 0) continue;
    for (let m = w * 4; m < w * 4 + 4; m++) if (hosts[m] >= need) out[k++] = base + m * MINUTE_MS;
  }
  quad.fill(0, 0, words);
  return out;
}

/**
 * combinedStarts' union: a bit per minute, set by each host's starts, then read 32 minutes at a
 * time. Counting hosts per minute in bytes and reading them four at a time, as the intersection
 * does, took 28 µs of the availability bench's answer (20 hosts, 2,200 starts over 20,160
 * minutes), most of it reading the counts back; the bits take a quarter of that (2026-11-28).
 */
function unionOfStarts(perHost: readonly (readonly number[])[], base: number, size: number): number[] {
  const words = Math.ceil(size / 32);
  if (scratchBits.length < words) scratchBits = new Int32Array(Math.max(words, scratchBits.length * 2));
  const bits = scratchBits;
  for (let h = 0; h < perHost.length; h++) {
    const list = perHost[h];
    for (let i = 0; i < list.length; i++) {
      const m = (list[i] - base) / MINUTE_MS;
      bits[m >>> 5] |= 1 << (m & 31);
    }
  }
  // counted first, so that the answer is allocated once at its size
  let count = 0;
  for (let w = 0; w < words; w++) {
    let x = bits[w];
    if (x === 0) continue;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    count += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  }
  const out = new Array<number>(count);
  for (let w = 0, k = 0; w < words; w++) {
    // lowest bit first: ascending minutes
    for (let x = bits[w]; x !== 0; x &= x - 1) out[k++] = base + (w * 32 + 31 - Math.clz32(x & -x)) * MINUTE_MS;
  }
  bits.fill(0, 0, words);
  return out;
}

function intersectSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) i++;
    else if (a[i] > b[j]) j++;
    else {
      out.push(a[i]);
      i++;
      j++;
    }
  }
  return out;
}

/**
 * Merges the hosts' ascending start lists; hosts free at a start are listed in host order.
 * Starts are whole minutes, so a counting sort over the minutes of [from, to) replaces a
 * comparison sort of every (start, host) pair.
 */
function unionWithHosts(
  ids: readonly string[],
  perHost: readonly (readonly number[])[],
  D: number,
  from: number,
  to: number,
): EngineSlot[] {
  const base = Math.floor(from / MINUTE_MS) * MINUTE_MS;
  const size = Math.ceil((to - base) / MINUTE_MS) + 1;
  const counts = new Uint32Array(size + 1);
  for (const list of perHost) for (const s of list) counts[(s - base) / MINUTE_MS + 1]++;
  for (let i = 1; i <= size; i++) counts[i] += counts[i - 1];
  const fill = counts.slice(0, size);
  const owners = new Uint32Array(counts[size]);
  for (let h = 0; h < perHost.length; h++) for (const s of perHost[h]) owners[fill[(s - base) / MINUTE_MS]++] = h;
  const out: EngineSlot[] = [];
  for (let i = 0; i < size; i++) {
    const lo = counts[i];
    const hi = counts[i + 1];
    if (lo === hi) continue;
    const memberIds = new Array<string>(hi - lo);
    for (let k = lo; k < hi; k++) memberIds[k - lo] = ids[owners[k]];
    const start = base + i * MINUTE_MS;
    out.push({ start, end: start + D, memberIds });
  }
  return out;
}
