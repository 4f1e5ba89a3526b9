/**
 * One DynamoDB Local for the whole run (in memory), with the tables of the shared specs. Test
 * files reach it through `inject('dynamo')` and isolate their data by unique tenant ids.
 */
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { createTables, startDynamoDbLocal, type DynamoDbLocal } from '#infra/local/dynamodb-local';
import type { TableId } from '#shared/store/table-specs';

export interface DynamoFixture {
  endpoint: string;
  tables: Record<TableId, string>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamo: DynamoFixture;
  }
}

let dynamo: DynamoDbLocal | undefined;

export async function setup(project: TestProject): Promise<void> {
  dynamo = await startDynamoDbLocal({});
  const tables = (await createTables(dynamo.endpoint, 'test')) as Record<TableId, string>;
  project.provide('dynamo', { endpoint: dynamo.endpoint, tables });
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}
