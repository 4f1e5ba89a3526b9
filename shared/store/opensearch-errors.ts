/**
 * The search cluster could not answer a reporting query: a refused or timed-out connection, a
 * 5xx or 429 after the client's retries, or a response we cannot read. The lists answer 503
 * `Unavailable` so callers retry the same page instead of treating it as empty.
 */
export class SearchUnavailableError extends Error {
  override readonly name = 'SearchUnavailableError';
}
