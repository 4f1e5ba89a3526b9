import { afterEach, describe, expect, it, vi } from 'vitest';
import { countProgress, progressOn } from '#infra/cli/terminal/count-progress';

afterEach(() => vi.useRealTimers());

/** What was written, with the terminal's clear-to-end-of-line shown as `<clear>`. */
function recorder() {
  const written: string[] = [];
  return { written, write: (text: string) => written.push(text.replaceAll('\x1b[K', '<clear>')) };
}

describe('countProgress, the CLI progress line of import, keys sync, seed and recount', () => {
  it('redraws one line in place on a terminal and ends it on finish', () => {
    vi.useFakeTimers();
    const { written, write } = recorder();
    const progress = countProgress({ label: 'seeding', unit: 'items', total: 100, tty: true, write });
    vi.advanceTimersByTime(1_000);
    progress.update(50);
    progress.finish();
    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(/^\rseeding: 50 of 100 items \(50%\), \d+ items\/s, about \d+ s left<clear>$/);
    expect(written[1]).toMatch(/\n$/);
  });

  it('without a total shows the count and the rate alone', () => {
    vi.useFakeTimers();
    const { written, write } = recorder();
    const progress = countProgress({ label: 'counting rows', unit: 'items', tty: true, write });
    vi.advanceTimersByTime(1_000);
    progress.update(1234);
    expect(written).toEqual([expect.stringMatching(/^\rcounting rows: 1234 items, \d+ items\/s<clear>$/)]);
  });

  it('prints nothing for a run that ends within the first interval off a terminal', () => {
    const { written, write } = recorder();
    const progress = countProgress({ label: 'importing', unit: 'items', total: 10, tty: false, write });
    progress.update(10);
    progress.finish();
    expect(written).toEqual([]);
  });

  it("goes to the run's stderr, redrawn in place when that is a terminal", () => {
    vi.useFakeTimers();
    const { written, write } = recorder();
    const terminal = progressOn({ isTTY: true, columns: 80, write });
    expect(terminal.tty).toBe(true);
    const progress = countProgress({ label: 'importing', unit: 'items', total: 10, ...terminal });
    vi.advanceTimersByTime(1_000);
    progress.update(5);
    expect(written).toEqual([expect.stringMatching(/^\rimporting: 5 of 10 items \(50%\)/)]);
    expect(progressOn({ write }).tty).toBe(false);
  });
});
