/**
 * Tenant API keys, stored by the SHA-256 of the whole key (the key itself is never stored).
 * Unlike every other store this one is not tenant-scoped: the authorizer looks a key up before it
 * knows the tenant, and the operator CLI manages keys across tenants. The port it implements, and
 * the record it keeps, are shared/auth/key-records.ts.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { KeysStore, StoredKey } from '#shared/auth/key-records';
import { tableSpecs } from './table-specs.ts';

const BY_KEY_ID = tableSpecs.keys.indexes[0]!.name;

function toStoredKey(item: Record<string, unknown>): StoredKey {
  return {
    keyId: String(item.keyId),
    keyHash: String(item.keyHash),
    tenants: (item.tenants as string[] | undefined) ?? [],
    scopes: (item.scopes as string[] | undefined) ?? [],
    name: String(item.name ?? ''),
    createdAt: String(item.createdAt),
    tagged: item.tagged === true ? true : undefined,
    expiresAt: typeof item.expiresAt === 'string' ? item.expiresAt : undefined,
    revokedAt: typeof item.revokedAt === 'string' ? item.revokedAt : undefined,
  };
}

export function createKeysStore(client: DynamoDBDocumentClient, table: string): KeysStore {
  const findByKeyId = async (keyId: string): Promise<StoredKey | undefined> => {
    const { Items } = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: BY_KEY_ID,
        KeyConditionExpression: 'keyId = :keyId',
        ExpressionAttributeValues: { ':keyId': keyId },
      }),
    );
    return Items?.[0] ? toStoredKey(Items[0]) : undefined;
  };
  return {
    async findByHash(keyHash) {
      // Strongly consistent: an eventually consistent read may return the record as it was before
      // a revocation, and the authorizer cache would then keep allowing the key for a whole TTL
      // more. Revocation must take effect within one TTL.
      const { Item } = await client.send(new GetCommand({ TableName: table, Key: { keyHash }, ConsistentRead: true }));
      return Item ? toStoredKey(Item) : undefined;
    },

    async create(key) {
      await client.send(
        new PutCommand({ TableName: table, Item: key, ConditionExpression: 'attribute_not_exists(keyHash)' }),
      );
    },

    async list(tenantId) {
      const keys: StoredKey[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new ScanCommand({
            TableName: table,
            // Strongly consistent: revoke and sync decide from this list whether a tenant keeps its
            // usage-plan key, and a key created a moment ago (a rotation: create, then revoke the
            // old one) must count, or its tenant's usage key goes and the new key is refused.
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
            ...(tenantId === undefined
              ? {}
              : { FilterExpression: 'contains(tenants, :tenant)', ExpressionAttributeValues: { ':tenant': tenantId } }),
          }),
        );
        keys.push(...(page.Items ?? []).map(toStoredKey));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
    },

    findByKeyId,

    async revoke(keyId, at) {
      const found = await findByKeyId(keyId);
      if (!found) return undefined;
      const { Attributes } = await client.send(
        new UpdateCommand({
          TableName: table,
          Key: { keyHash: found.keyHash },
          // Keep the first revocation time when revoked twice.
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
          ConditionExpression: 'attribute_exists(keyHash)',
          ExpressionAttributeValues: { ':at': at.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? toStoredKey(Attributes) : undefined;
    },
  };
}
