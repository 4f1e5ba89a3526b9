/**
 * How much one recover of an endpoint's failed deliveries does, and how often an endpoint may be
 * recovered. Bounded so that a call ends well within the function's 10 s whatever the backlog (a
 * call that reached its deadline anyway leaves each delivery it made pending with its task queued:
 * shared/webhooks/recover-deliveries.ts); the caller goes on from `nextSince` with the next call.
 */

/** Deliveries read per page of the endpoint's partition (only their keys, status and attempts). */
export const RECOVER_PAGE_SIZE = 100;
/** Pages one call reads: failed or not, every delivery read counts, so a call past a long run of delivered ones still ends. */
export const RECOVER_MAX_PAGES = 10;
/** The most deliveries one call reads. */
export const RECOVER_READ_LIMIT = RECOVER_PAGE_SIZE * RECOVER_MAX_PAGES;
/** The most deliveries one call makes pending again: 20 groups, about a second of writes and sends. */
export const MAX_RECOVERED_DELIVERIES = 200;
/**
 * Deliveries made pending together, then queued together before the next group (SQS's most in one
 * batch): a call cut short leaves at most this group in flight, and queues it all the same.
 */
export const RECOVER_GROUP_SIZE = 10;
/**
 * One recover per endpoint per minute. Longer than a call can last (the function's 10 s), so two
 * recovers of one endpoint never run at once; it paces a backlog at 200 deliveries a minute per
 * endpoint, so a receiver just back is not flooded; and a client calling in a loop costs one
 * refused conditional write a call, not pages of reads and writes.
 */
export const RECOVER_INTERVAL_MS = 60_000;

/** What one call may do, as its answer states it (and a test may make smaller). */
export interface RecoverLimits {
  pageSize: number;
  maxPages: number;
  maxRecovered: number;
  groupSize: number;
}

export const RECOVER_LIMITS: RecoverLimits = {
  pageSize: RECOVER_PAGE_SIZE,
  maxPages: RECOVER_MAX_PAGES,
  maxRecovered: MAX_RECOVERED_DELIVERIES,
  groupSize: RECOVER_GROUP_SIZE,
};

/**
 * Whole seconds until the endpoint may be recovered again, at least 1 (`Retry-After`), at most the
 * interval (another function's clock may run a little ahead).
 *
 * @example recoverRetryAfterSeconds(Date.parse('2026-01-02T08:00:00Z'), Date.parse('2026-01-02T08:00:20.500Z')) // 40
 */
export function recoverRetryAfterSeconds(lastRecoverAtMs: number, nowMs: number): number {
  const seconds = Math.ceil((lastRecoverAtMs + RECOVER_INTERVAL_MS - nowMs) / 1000);
  return Math.min(RECOVER_INTERVAL_MS / 1000, Math.max(1, seconds));
}
