/** CreateTable input from a shared table spec: how the local runtime and tests make tables. */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { KeyAttribute, TableSpec } from './table-specs.ts';

export function createTableInput(spec: TableSpec, name: string): CreateTableCommandInput {
  const attributes = new Map<string, KeyAttribute>();
  const keyOf = (partitionKey: KeyAttribute, sortKey?: KeyAttribute) => {
    for (const attribute of [partitionKey, sortKey]) if (attribute) attributes.set(attribute.name, attribute);
    return [{ AttributeName: partitionKey.name, KeyType: 'HASH' as const }, ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }] : [])];
  };
  const KeySchema = keyOf(spec.partitionKey, spec.sortKey);
  const indexes = spec.indexes.map((index) => ({
    IndexName: index.name,
    KeySchema: keyOf(index.partitionKey, index.sortKey),
    Projection: { ProjectionType: 'ALL' as const },
  }));
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema,
    AttributeDefinitions: [...attributes.values()].map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
    ...(indexes.length > 0 ? { GlobalSecondaryIndexes: indexes } : {}),
    ...(spec.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: spec.stream } } : {}),
  };
}
