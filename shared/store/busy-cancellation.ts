/**
 * Cancellation reasons of a transaction that mean "busy, try again" rather than "refused": another
 * transaction held one of its items, or capacity ran short. `conflict` says which, because a keyed
 * write that lost to a concurrent transaction may find its key recorded by the winner.
 */
const CAPACITY_CODES = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

export function busyReason(codes: ReadonlyArray<string | undefined>): { conflict: boolean } | undefined {
  const conflict = codes.includes('TransactionConflict');
  return conflict || codes.some((code) => CAPACITY_CODES.has(code ?? '')) ? { conflict } : undefined;
}
