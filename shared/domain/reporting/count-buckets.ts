/**
 * Maintained row counts of a reporting list, so that a window's `total` costs the same for a
 * tenant of a thousand rows as for one of millions. Every row counts once in a bucket of each
 * level: its hour, its day, its 32-day block and its 512-day block (epoch-aligned, each level a
 * whole number of the one below, so buckets nest). A window is then covered by at most 23 hours,
 * 31 days and 15 blocks on each side plus the 512-day blocks in between (sparse: only buckets
 * holding rows exist), and the parts of an hour at its two edges, which are counted row by row:
 * bounded by the rows of two hours, whatever the window's length.
 */

const HOUR_MS = 3_600_000;

/** Bucket sizes, finest first; each divides the next. */
export const COUNT_LEVELS = [HOUR_MS, 24 * HOUR_MS, 32 * 24 * HOUR_MS, 512 * 24 * HOUR_MS] as const;

export type CountLevel = 0 | 1 | 2 | 3;

export interface CountBucket {
  level: CountLevel;
  /** Epoch ms where the bucket starts. */
  start: number;
}

/** Consecutive buckets of one level, from `first` to `last` (bucket starts, inclusive). */
export interface BucketRun {
  level: CountLevel;
  first: number;
  last: number;
}

/** How a window's rows are counted: these half-open spans row by row, plus the buckets of the runs. */
export interface WindowCount {
  direct: Array<[from: number, to: number]>;
  runs: BucketRun[];
}

const floorTo = (ms: number, size: number) => Math.floor(ms / size) * size;
const ceilTo = (ms: number, size: number) => Math.ceil(ms / size) * size;

/** The bucket of each level that a row at `ms` counts in. */
export function bucketsOf(ms: number): CountBucket[] {
  return COUNT_LEVELS.map((size, level) => ({ level: level as CountLevel, start: floorTo(ms, size) }));
}

/** Splits [from, to) into spans counted row by row and runs of whole buckets, together exactly the window. */
export function planWindowCount(from: number, to: number): WindowCount {
  if (from >= to) return { direct: [], runs: [] };
  const start = ceilTo(from, HOUR_MS);
  const end = floorTo(to, HOUR_MS);
  // Within two hours or less: count the rows themselves.
  if (start >= end) return { direct: [[from, to]], runs: [] };
  const direct: WindowCount['direct'] = [];
  if (from < start) direct.push([from, start]);
  if (end < to) direct.push([end, to]);
  const runs: BucketRun[] = [];
  let [low, high] = [start, end];
  for (let level = 0; level < COUNT_LEVELS.length; level++) {
    const size = COUNT_LEVELS[level]!;
    const next = COUNT_LEVELS[level + 1];
    const innerLow = next === undefined ? high : ceilTo(low, next);
    const innerHigh = next === undefined ? high : floorTo(high, next);
    if (innerLow >= innerHigh) {
      // No whole bucket of the next level inside: this level covers what is left.
      runs.push({ level: level as CountLevel, first: low, last: high - size });
      break;
    }
    if (low < innerLow) runs.push({ level: level as CountLevel, first: low, last: innerLow - size });
    if (innerHigh < high) runs.push({ level: level as CountLevel, first: innerHigh, last: high - size });
    [low, high] = [innerLow, innerHigh];
  }
  return { direct, runs };
}
