/** Half-open [start, end) in epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

/** Sorted by start, overlapping or touching intervals joined; empty intervals dropped. */
export function mergeIntervals(list: readonly Interval[]): Interval[] {
  const sorted = list.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end) {
      if (i.end > last.end) last.end = i.end;
    } else out.push({ start: i.start, end: i.end });
  }
  return out;
}

/** How many of the sorted `points` fall in each [bounds[i], bounds[i + 1]). */
export function countPerBucket(points: ArrayLike<number>, bounds: readonly number[]): number[] {
  const counts = new Array<number>(Math.max(0, bounds.length - 1)).fill(0);
  let p = 0;
  while (p < points.length && points[p] < bounds[0]) p++;
  for (let i = 0; i < counts.length; i++) {
    while (p < points.length && points[p] < bounds[i + 1]) {
      counts[i]++;
      p++;
    }
  }
  return counts;
}

/** The first index of the ascending `values` at or after `t` (`after`: strictly after it), or their length. */
export function firstIndexFrom(values: ArrayLike<number>, t: number, after = false): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid] > t || (!after && values[mid] === t)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
