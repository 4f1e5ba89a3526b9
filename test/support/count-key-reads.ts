/**
 * A gateway whose functions reach DynamoDB through the counting proxy (dynamo-fault-proxy.ts), to
 * see what a request costs the authorizer: how many reads of the keys table it makes. Both
 * runtimes' functions go through the proxy (it is their DynamoDB endpoint), so the count is the
 * deployed authorizer's in bundle mode too. The keys are arranged on a client of their own, which
 * the proxy does not see. Must run before anything in the test file touches `documentClient()`
 * (serve-gateway-over.ts).
 */
import type { BoundGateway } from '#infra/local/serve-gateway';
import { type ApiAnswer, callApi, documentPath } from './call-api.ts';
import { startDynamoFaultProxy } from './dynamo-fault-proxy.ts';
import { directStores, serveGatewaysOver } from './serve-gateway-over.ts';
import { workerDynamo } from './worker-dynamo.ts';

export interface KeyReadCounting {
  /** Stores straight to DynamoDB Local: the keys a test makes cost no counted read. */
  direct: ReturnType<typeof directStores>;
  /**
   * `GET` of a document of `tenant` (absent: 404 once the key is accepted) with `key`, and the
   * keys-table reads it caused. The authorizer cache is off: every request runs the authorizer.
   */
  getWith(tenant: string, key: string): Promise<{ answer: ApiAnswer; keyReads: number }>;
  close(): Promise<void>;
}

/**
 * Starts the proxy and a gateway over it, with the authorizer cache off.
 *
 * @example
 * const counting = await startKeyReadCounting();
 * const { answer, keyReads } = await counting.getWith(tenant, forged); // 401, 0 reads
 */
export async function startKeyReadCounting(): Promise<KeyReadCounting> {
  const { endpoint, credentials, tables } = workerDynamo();
  const proxy = await startDynamoFaultProxy(endpoint);
  const [gateway] = (await serveGatewaysOver({ endpoint: proxy.url, credentials }, tables, [0])) as [BoundGateway];
  const direct = directStores({ endpoint, credentials }, tables);
  return {
    direct,
    async getWith(tenant, key) {
      const recording = proxy.record({ operation: 'GetItem', bodyContains: `"${tables.keys}"` });
      try {
        const answer = await callApi(gateway.url, 'GET', documentPath(tenant, 'users', 'key-reads'), key);
        return { answer, keyReads: recording.bodies.length };
      } finally {
        recording.remove();
      }
    },
    async close() {
      await gateway.close();
      await proxy.close();
      direct.destroy();
    },
  };
}
