/**
 * A window's total from maintained counts must equal counting its rows one by one, for any rows and
 * any window, and the work must stay bounded whatever the window's length.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketsOf, COUNT_LEVELS, planWindowCount } from '#shared/domain/reporting/count-buckets';

const YEAR_MS = 365 * 24 * 3_600_000;

/** What the reporting index does with a plan: direct spans row by row, runs from the buckets. */
function totalByPlan(rows: number[], from: number, to: number): number {
  const counts = new Map<string, number>();
  for (const ms of rows)
    for (const { level, start } of bucketsOf(ms))
      counts.set(`${level}#${start}`, (counts.get(`${level}#${start}`) ?? 0) + 1);
  const plan = planWindowCount(from, to);
  let total = plan.direct.reduce((sum, [low, high]) => sum + rows.filter((ms) => ms >= low && ms < high).length, 0);
  for (const run of plan.runs) {
    for (const [key, n] of counts) {
      const [level, start] = key.split('#').map(Number) as [number, number];
      if (level === run.level && start >= run.first && start <= run.last) total += n;
    }
  }
  return total;
}

describe('planWindowCount', () => {
  it('counts exactly the rows of any window, at any scale', () => {
    const instant = fc.oneof(
      fc.integer({ min: 0, max: 60 * YEAR_MS }),
      fc.integer({ min: 50 * YEAR_MS, max: 50 * YEAR_MS + 40 * 24 * 3_600_000 }),
    );
    fc.assert(
      fc.property(fc.array(instant, { maxLength: 200 }), instant, instant, (rows, a, b) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        expect(totalByPlan(rows, from, to)).toBe(rows.filter((ms) => ms >= from && ms < to).length);
      }),
      { numRuns: 500 },
    );
  });

  it('bounded work: direct spans within two hours in all, at most two runs a level, and the plan tiles the window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 * YEAR_MS }), fc.integer({ min: 0, max: 200 * YEAR_MS }), (a, b) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const { direct, runs } = planWindowCount(from, to);
        expect(direct.reduce((sum, [low, high]) => sum + (high - low), 0)).toBeLessThanOrEqual(2 * COUNT_LEVELS[0]);
        for (let level = 0; level < COUNT_LEVELS.length; level++)
          expect(runs.filter((run) => run.level === level).length).toBeLessThanOrEqual(2);
        const spans = [
          ...direct,
          ...runs.map((run) => [run.first, run.last + COUNT_LEVELS[run.level]] as [number, number]),
        ].sort((x, y) => x[0] - y[0]);
        if (from === to) {
          expect(spans).toEqual([]);
          return;
        }
        expect(spans[0]![0]).toBe(from);
        expect(spans.at(-1)![1]).toBe(to);
        for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBe(spans[i - 1]![1]);
      }),
      { numRuns: 2000 },
    );
  });

  it('a window of whole hours is counted from buckets only; last_month is a handful of runs', () => {
    const day = 24 * 3_600_000;
    expect(planWindowCount(10 * day, 12 * day)).toEqual({
      direct: [],
      runs: [{ level: 1, first: 10 * day, last: 11 * day }],
    });
    const to = Date.UTC(2026, 10, 23, 14, 30);
    const plan = planWindowCount(to - 30 * day, to);
    expect(plan.direct).toHaveLength(2);
    expect(plan.runs.length).toBeLessThanOrEqual(5);
  });
});
