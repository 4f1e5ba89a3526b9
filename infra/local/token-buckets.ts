/**
 * The local gateway's rate limit: a token bucket per usage key (the authorizer's
 * `usageIdentifierKey`: the tenant's, or a key of several tenants' own) that holds `burst` tokens
 * and refills `rate` per second, as an API Gateway usage plan throttles. Buckets exist only for
 * keys the authorizer accepted, so their number is bounded by the keys issued.
 */
export interface RateLimit {
  /** Steady requests per second. */
  rate: number;
  /** Requests allowed at once before the rate applies. */
  burst: number;
}

/** The stage's default rate limit: the local gateway and a deployed stage's usage plan both start here. */
export const DEFAULT_RATE_LIMIT: RateLimit = { rate: 50, burst: 100 };

/**
 * The stage's throttle of each method, before any authorizer: 40 busy
 * tenants at their full rate, within API Gateway's regional account limit (10 000/5 000).
 */
export const DEFAULT_STAGE_RATE_LIMIT: RateLimit = { rate: 2000, burst: 4000 };

export function formatRateLimit(limit: RateLimit): string {
  return `${limit.rate}/${limit.burst}`;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** `<rate>/<burst>` as in CXM_RATE_LIMIT, or undefined when it is not that. */
export function parseRateLimit(text: string): RateLimit | undefined {
  const match = /^(\d+(?:\.\d+)?)\/(\d+)$/.exec(text);
  if (!match) return undefined;
  const rate = Number(match[1]);
  const burst = Number(match[2]);
  return rate > 0 && burst >= 1 ? { rate, burst } : undefined;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a token for `key`; false when the bucket is empty (the request is throttled). */
  take(key: string): boolean {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.limit.burst, at: now };
    const tokens = Math.min(this.limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.limit.rate);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return false;
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return true;
  }
}
