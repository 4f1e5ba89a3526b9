import { describe, expect, it } from 'vitest';
import { backoffMs, busyReason, CONTENDED_ITEM, HOT_DOCUMENT } from '#shared/store/write-retry';

describe('write retry', () => {
  it('waits a random share of a ceiling that doubles with each attempt, up to its cap', () => {
    const top = () => 1;
    expect([0, 1, 2, 3, 4, 5, 10].map((attempt) => backoffMs(attempt, CONTENDED_ITEM, top))).toEqual([
      25, 50, 100, 200, 400, 400, 400,
    ]);
    expect(backoffMs(3, HOT_DOCUMENT, () => 0.5)).toBe(40);
    expect(backoffMs(3, CONTENDED_ITEM, () => 0)).toBe(0);
  });

  it('tells a busy transaction (a conflict, or capacity) from a refused one', () => {
    expect(busyReason(['None', 'TransactionConflict'])).toEqual({ conflict: true });
    expect(busyReason(['ThrottlingError', undefined])).toEqual({ conflict: false });
    expect(busyReason(['ConditionalCheckFailed', 'None'])).toBeUndefined();
  });
});
