import { describe, expect, it } from 'vitest';
import { RECOVER_INTERVAL_MS, recoverRetryAfterSeconds } from '#shared/domain/webhooks/recover-limits';

describe('recoverRetryAfterSeconds', () => {
  const last = Date.parse('2026-01-02T08:00:00.000Z');

  it('is the whole seconds left of the interval, rounded up', () => {
    expect(recoverRetryAfterSeconds(last, last)).toBe(60);
    expect(recoverRetryAfterSeconds(last, last + 20_500)).toBe(40);
    expect(recoverRetryAfterSeconds(last, last + RECOVER_INTERVAL_MS - 1)).toBe(1);
  });

  it('is at least 1 and at most the interval, whatever the clocks say', () => {
    expect(recoverRetryAfterSeconds(last, last + RECOVER_INTERVAL_MS + 5000)).toBe(1);
    expect(recoverRetryAfterSeconds(last + 3000, last)).toBe(RECOVER_INTERVAL_MS / 1000);
  });
});
