/**
 * Retrying a write that lost to another: which cancellation reasons of a transaction mean "busy, try
 * again" rather than "refused", and how long to wait before the next attempt. The wait is full
 * jitter (a random wait up to min(cap, base × 2^attempt), AWS's "Exponential Backoff and Jitter"),
 * so writers that collided do not collide again in step.
 */
const CAPACITY_CODES = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

/**
 * Whether a transaction's cancellation reasons say "busy": another transaction held one of its
 * items, or capacity ran short. `conflict` says which, because a keyed write that lost to a
 * concurrent transaction may find its key recorded by the winner.
 *
 * @example busyReason(['None', 'TransactionConflict']) // { conflict: true }
 */
export function busyReason(codes: ReadonlyArray<string | undefined>): { conflict: boolean } | undefined {
  const conflict = codes.includes('TransactionConflict');
  return conflict || codes.some((code) => CAPACITY_CODES.has(code ?? '')) ? { conflict } : undefined;
}

/** The waits of one kind of write: the first attempt's ceiling and the longest. */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

/** An item a few requests contend for: a conversation's notes, a tenant's count of jobs or endpoints. */
export const CONTENDED_ITEM: BackoffPolicy = { baseMs: 25, capMs: 400 };
/** A document many writers merge into at once: short waits, so 30 merges at once win in turn within a deadline. */
export const HOT_DOCUMENT: BackoffPolicy = { baseMs: 10, capMs: 200 };
/** A reporting list's count buckets, which every batch of an import writes: longer waits, larger batches. */
export const COUNT_BUCKETS: BackoffPolicy = { baseMs: 20, capMs: 1_000 };

/**
 * The wait before attempt `attempt + 1`, in ms.
 *
 * @example backoffMs(3, CONTENDED_ITEM, () => 0.5) // 100: half of min(400, 25 × 2³)
 */
export function backoffMs(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  return random() * Math.min(policy.capMs, policy.baseMs * 2 ** attempt);
}

/**
 * Waits before the next attempt of a write that lost.
 *
 * @example await backoff(attempt, CONTENDED_ITEM);
 */
export function backoff(attempt: number, policy: BackoffPolicy): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, backoffMs(attempt, policy)));
}
