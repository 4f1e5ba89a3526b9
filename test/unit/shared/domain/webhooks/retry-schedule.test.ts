/** The retry schedule: when each attempt comes, what Retry-After changes, and when it all stops. */
import { describe, expect, it } from 'vitest';
import {
  DISABLE_AFTER_FAILING_MS,
  endpointFailedTooLong,
  nextStep,
  parseRetryAfter,
  RETRY_SCHEDULE_MS,
} from '#shared/domain/webhooks/retry-schedule';

const failed = (retryAfterMs?: number) => ({ kind: 'failed' as const, reason: 'HTTP 500', status: 500, retryAfterMs });

describe('nextStep', () => {
  it('follows the schedule: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up with the last reason', () => {
    const waits = [];
    for (let attempts = 1; ; attempts++) {
      const step = nextStep(attempts, failed());
      if (step.kind !== 'retry') {
        expect(step).toEqual({ kind: 'give-up', reason: '8 attempts failed, the last with HTTP 500' });
        break;
      }
      waits.push(step.afterMs);
    }
    expect([0, ...waits]).toEqual(RETRY_SCHEDULE_MS);
    expect(RETRY_SCHEDULE_MS.reduce((total, wait) => total + wait, 0) / 3_600_000).toBeCloseTo(27.6, 1);
  });

  it('a delivery ends it; a 410 disables the endpoint at once', () => {
    expect(nextStep(3, { kind: 'delivered', status: 204 })).toEqual({ kind: 'done' });
    expect(nextStep(1, { kind: 'gone' })).toMatchObject({ kind: 'disable-endpoint', reason: /410 Gone/ });
  });

  it('Retry-After makes an attempt later, never earlier, and never past the longest step', () => {
    expect(nextStep(1, failed(60_000))).toEqual({ kind: 'retry', afterMs: 60_000 });
    expect(nextStep(3, failed(1_000))).toEqual({ kind: 'retry', afterMs: 30 * 60_000 });
    expect(nextStep(1, failed(365 * 24 * 3_600_000))).toEqual({ kind: 'retry', afterMs: 10 * 3_600_000 });
  });

  it('a shorter schedule (a local stage) is followed the same way', () => {
    expect(nextStep(1, failed(), [0, 100, 200])).toEqual({ kind: 'retry', afterMs: 100 });
    expect(nextStep(3, failed(), [0, 100, 200])).toMatchObject({ kind: 'give-up' });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-27T02:00:00Z');
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Fri, 27 Nov 2026 02:01:00 GMT', 60_000],
    ['Fri, 27 Nov 2026 01:00:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    [undefined, undefined],
  ])('%s is %s ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });
});

describe('endpointFailedTooLong', () => {
  it('disables an endpoint after 5 days of failures, not before, and never one that is not failing', () => {
    const since = Date.parse('2026-11-20T00:00:00Z');
    expect(endpointFailedTooLong(since, since + DISABLE_AFTER_FAILING_MS - 1)).toBe(false);
    expect(endpointFailedTooLong(since, since + DISABLE_AFTER_FAILING_MS)).toBe(true);
    expect(endpointFailedTooLong(undefined, Date.now())).toBe(false);
  });
});
