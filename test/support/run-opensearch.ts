/**
 * The run's OpenSearch engine (test/support/global-setup.ts), as a test file reaches it: its
 * endpoint, and a client signing with the one key it accepts, which is also what this process's
 * local functions sign with (test/support/runtime-setup.ts adopts it).
 */
import { inject } from 'vitest';
import { createOpenSearchClient, type OpenSearchClient } from '#shared/store/opensearch-client';
import type { OpenSearchFixture } from './global-setup.ts';

/**
 * The engine and a client of it; or, given an endpoint, a client of another engine started with
 * the run's key (one a file stops and starts).
 *
 * @example const { client } = runOpenSearch(); await client.request({ method: 'GET', path: '/' });
 */
export function runOpenSearch(endpoint?: string): OpenSearchFixture & { client: OpenSearchClient } {
  const fixture = { ...inject('opensearch'), ...(endpoint && { endpoint }) };
  const client = createOpenSearchClient({
    endpoint: fixture.endpoint,
    region: fixture.region,
    credentials: async () => ({ ...fixture.credentials }),
    requestTimeoutMs: 30_000,
  });
  return { ...fixture, client };
}
