/**
 * The local gateway's rate limit: a token bucket per usage identity (a tenant, or a
 * key of several tenants: shared/auth/usage-identity.ts) that holds `burst` tokens and refills
 * `rate` per second, as an API Gateway usage plan throttles. Buckets exist only for identities of
 * keys the authorizer accepted, so their number is bounded by the keys issued.
 */
import type { RateLimit } from '#infra/cdk/stage/default-rate-limits';

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
