/**
 * The bench's arithmetic and output (test/bench), not the bench itself: speed is never asserted
 * in tests (DESIGN section 6).
 */
import { describe, expect, it } from 'vitest';
import { atLeast, atMost, median, pairedDifference, pairedRatio, round } from '#test/bench/bench-stats';
import { formatJson, formatReport, formatTable, goals, type BenchReport } from '#test/bench/print-table';

describe('bench statistics', () => {
  it('takes the median of odd and even counts, whatever the order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });

  it('pairs each run with the baseline run beside it, so one slow pair does not move the figure', () => {
    // The machine slowed down in the third pair: both sides took three times as long.
    expect(pairedRatio([110, 120, 330], [100, 100, 300])).toBe(1.1);
    expect(pairedDifference([12, 15, 40], [10, 10, 30])).toBe(5);
    expect(() => pairedRatio([1], [1, 2])).toThrow(RangeError);
  });

  it('states goals in both directions', () => {
    expect(atMost(1.2, 1.25)).toEqual({ kind: 'max', limit: 1.25, met: true });
    expect(atLeast(0.6, 0.7)).toEqual({ kind: 'min', limit: 0.7, met: false });
    expect(round(1.23456)).toBe(1.23);
  });
});

const report: BenchReport = {
  coldStart: {
    runs: 3,
    baselineMs: 90,
    baselineCpuMs: 80,
    functions: [{ function: 'getCurrentDocument', initMs: 99, initCpuMs: 88, ratio: 1.1, wallRatio: 1.1, goal: atMost(1.1, 1.25) }],
  },
  bundles: null,
  warmOverhead: {
    rounds: 2,
    batch: 10,
    routes: [{ route: 'getCurrentDocument', chainUs: 180, bareUs: 100, overheadUs: 80, goal: atMost(80, 50) }],
  },
  throughput: null,
  pagination: null,
};

describe('bench output', () => {
  it('aligns columns, right-aligning those marked >', () => {
    expect(formatTable(['name', '>n'], [['a', '1'], ['bbb', '22']]).split('\n')).toEqual(['name   n', '----  --', 'a      1', 'bbb   22']);
  });

  it('prints the report as one JSON object on the last line', () => {
    const lines = formatJson(report).trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual(report);
    expect(Object.keys(JSON.parse(lines.at(-1)!))).toEqual(['coldStart', 'bundles', 'warmOverhead', 'throughput', 'pagination']);
  });

  it('names every goal not met in the table summary', () => {
    expect(goals(report).map(({ name, goal }) => [name, goal.met])).toEqual([
      ['cold start getCurrentDocument', true],
      ['warm overhead getCurrentDocument', false],
    ]);
    expect(formatReport(report)).toContain('Goals: 1 of 2 met; not met: warm overhead getCurrentDocument.');
  });
});
