/**
 * The default throttles, in one place for both runtimes: a deployed stage's usage plan and stage
 * throttle (config.ts) and the local gateway's token buckets (local/start.ts) start from the same
 * numbers, and the stack's config takes them from here rather than from the local emulator.
 */
export interface RateLimit {
  /** Steady requests per second. */
  rate: number;
  /** Requests allowed at once before the rate applies. */
  burst: number;
}

/**
 * The stage's default rate for each usage identity: a tenant, whichever of its keys calls;
 * a key of several tenants on its own (shared/auth/usage-identity.ts).
 */
export const DEFAULT_RATE_LIMIT: RateLimit = { rate: 50, burst: 100 };

/**
 * The stage's throttle of each method, before any authorizer: 40 busy
 * tenants at their full rate, within API Gateway's regional account limit (10 000/5 000).
 */
export const DEFAULT_STAGE_RATE_LIMIT: RateLimit = { rate: 2000, burst: 4000 };
