/**
 * CreateTable input from a shared table spec, and UpdateTable input that adds one of its indexes to
 * a table made before the index existed: how the local runtime and tests make and upgrade tables
 * (a deployed stage gets both from CloudFormation).
 */
import type {
  AttributeDefinition,
  CreateTableCommandInput,
  KeySchemaElement,
  UpdateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { IndexSpec, KeyAttribute, TableSpec } from './table-specs.ts';

function keySchema(partitionKey: KeyAttribute, sortKey?: KeyAttribute): KeySchemaElement[] {
  return [
    { AttributeName: partitionKey.name, KeyType: 'HASH' },
    ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }] : []),
  ];
}

function attributeDefinitions(keys: (KeyAttribute | undefined)[]): AttributeDefinition[] {
  const attributes = new Map<string, KeyAttribute>();
  for (const attribute of keys) if (attribute) attributes.set(attribute.name, attribute);
  return [...attributes.values()].map((a) => ({ AttributeName: a.name, AttributeType: a.type }));
}

const indexInput = (index: IndexSpec) => ({
  IndexName: index.name,
  KeySchema: keySchema(index.partitionKey, index.sortKey),
  Projection: index.include
    ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.include] }
    : { ProjectionType: 'ALL' as const },
});

/**
 * The CreateTable request of a spec's table.
 *
 * @example await client.send(new CreateTableCommand(createTableInput(tableSpecs.vocJobs, 'cxm-local-voc-jobs')));
 */
export function createTableInput(spec: TableSpec, name: string): CreateTableCommandInput {
  const indexes = spec.indexes.map(indexInput);
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: keySchema(spec.partitionKey, spec.sortKey),
    AttributeDefinitions: attributeDefinitions([
      spec.partitionKey,
      spec.sortKey,
      ...spec.indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
    ]),
    ...(indexes.length > 0 ? { GlobalSecondaryIndexes: indexes } : {}),
    ...(spec.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: spec.stream } } : {}),
  };
}

/**
 * The UpdateTable request that adds `index` to an existing table of `spec` (DynamoDB adds one
 * global secondary index per request).
 *
 * @example await client.send(new UpdateTableCommand(addIndexInput(tableSpecs.vocJobs, name, tableSpecs.vocJobs.indexes[0]!)));
 */
export function addIndexInput(spec: TableSpec, name: string, index: IndexSpec): UpdateTableCommandInput {
  return {
    TableName: name,
    AttributeDefinitions: attributeDefinitions([spec.partitionKey, spec.sortKey, index.partitionKey, index.sortKey]),
    GlobalSecondaryIndexUpdates: [{ Create: indexInput(index) }],
  };
}
