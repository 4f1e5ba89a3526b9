/**
 * The arithmetic every figure of the bench shares: medians of repeated runs, and ratios against
 * a baseline measured in the same run, paired so that a machine that slows down mid-run slows
 * both sides of a pair alike.
 */

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median of `measured[i] / baseline[i]` over pairs taken one right after the other. */
export function pairedRatio(measured: readonly number[], baseline: readonly number[]): number {
  if (measured.length !== baseline.length) throw new RangeError('pairs of unequal length');
  return median(measured.map((value, i) => value / baseline[i]!));
}

/** The median of `measured[i] - baseline[i]` over pairs. */
export function pairedDifference(measured: readonly number[], baseline: readonly number[]): number {
  if (measured.length !== baseline.length) throw new RangeError('pairs of unequal length');
  return median(measured.map((value, i) => value - baseline[i]!));
}

/** Rounds for display and JSON: figures carry no more digits than the noise allows. */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A goal as the report states it: the figure, which way is good, and whether it holds. */
export interface Goal {
  /** `max`: the figure must be at most `limit`; `min`: at least. */
  kind: 'max' | 'min';
  limit: number;
  /** The figure measured. */
  value: number;
  met: boolean;
}

export function atMost(value: number, limit: number): Goal {
  return { kind: 'max', limit, value, met: value <= limit };
}

export function atLeast(value: number, limit: number): Goal {
  return { kind: 'min', limit, value, met: value >= limit };
}
