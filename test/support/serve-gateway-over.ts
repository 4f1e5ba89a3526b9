/**
 * A local gateway whose functions reach DynamoDB at `endpoint` (a fault proxy, a DynamoDB Local of
 * the test's own), plus stores that bypass it to arrange and check data. The functions' DynamoDB
 * client is one per process and reads its endpoint when first created, so this must run before
 * anything in the test file touches a store through `documentClient()`; vitest runs each file in
 * a process of its own.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LocalDynamoConnection } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { type BoundGateway, bindGateway } from '#infra/local/serve-gateway';
import { issueKey } from '#shared/auth/issue-key';
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import { documentClientOver } from '#shared/store/dynamo-client';
import type { TableId } from '#shared/store/table-specs';
import { bindTableStores } from '#shared/store/table-stores';
import { TEST_KEY_TAG_SECRET } from './test-env.ts';
import { storeUntaggedKey } from './untagged-key.ts';

/** Gateways over one endpoint; each with its own authorizer cache TTL. */
export async function serveGatewaysOver(
  store: LocalDynamoConnection,
  tables: Record<TableId, string>,
  ttls: number[],
): Promise<BoundGateway[]> {
  pointAtLocalDynamo(store, tables);
  const gateways: BoundGateway[] = [];
  for (const authCacheTtlSeconds of ttls) {
    const gateway = await bindGateway(0);
    await gateway.serve({ authCacheTtlSeconds });
    gateways.push(gateway);
  }
  return gateways;
}

/** Stores on a client of their own, straight to `endpoint`: no fault rule sees their calls. */
export function directStores({ endpoint, credentials }: LocalDynamoConnection, tables: Record<TableId, string>) {
  const client = documentClientOver(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials }));
  const stores = bindTableStores(client, tables);
  const { keys, conversations } = stores;
  return {
    ...stores,
    /** A key tagged under the gateways' current key-tag secret, unless `tagSecret` says another. */
    async createKey(
      tenants: string[],
      scopes: string[],
      tagSecret = TEST_KEY_TAG_SECRET,
    ): Promise<{ key: string; keyId: string; keyHash: string }> {
      const { key, stored } = await issueKey(keys, { tenants, scopes, name: 'test' }, { tagSecret });
      return { key, keyId: stored.keyId, keyHash: stored.keyHash };
    },
    /** A key as issued before key tags (`cxm_<keyId>_<secret>`), its record without `tagged`. */
    createUntaggedKey: (tenants: string[], scopes: string[]) => storeUntaggedKey(keys, tenants, scopes),
    /** An open customer conversation that accepts notes. */
    addConversation: (tenantId: string, id: string) =>
      conversations.putConversation(tenantId, conversationWithDefaults({ id })),
    destroy: () => client.destroy(),
  };
}
