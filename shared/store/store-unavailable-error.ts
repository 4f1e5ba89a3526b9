/**
 * A store call that could not complete for a transient reason our own retries did not outlast
 * (for example transaction conflicts). The chain answers 503 with Retry-After.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
