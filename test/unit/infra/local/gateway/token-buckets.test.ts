import { describe, expect, it } from 'vitest';
import { parseRateLimit, TokenBuckets } from '#infra/local/gateway/token-buckets';

describe('token buckets per usage identity (a tenant, or a key of several tenants; local gateway)', () => {
  it('allows a burst, then the refill rate, per identity', () => {
    let now = 0;
    const buckets = new TokenBuckets({ rate: 2, burst: 3 }, () => now);
    expect([1, 2, 3, 4].map(() => buckets.take('k1'))).toEqual([true, true, true, false]);
    expect(buckets.take('k2')).toBe(true);
    now += 499;
    expect(buckets.take('k1')).toBe(false);
    now += 1;
    expect(buckets.take('k1')).toBe(true);
    expect(buckets.take('k1')).toBe(false);
    now += 10_000;
    expect([1, 2, 3, 4].map(() => buckets.take('k1'))).toEqual([true, true, true, false]);
  });

  it('reads <rate>/<burst>', () => {
    expect(parseRateLimit('50/100')).toEqual({ rate: 50, burst: 100 });
    expect(parseRateLimit('0.5/1')).toEqual({ rate: 0.5, burst: 1 });
    for (const text of ['', '50', '50/', '/100', '0/10', '5/0', 'a/b', '50/100/1'])
      expect(parseRateLimit(text)).toBeUndefined();
  });
});
