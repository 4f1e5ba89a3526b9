/**
 * The DynamoDB Local instance a test file talks to. The global setup starts several
 * (test/support/global-setup.ts, DYNAMO_INSTANCES): one emulator runs its writes one at a time,
 * and a whole run on one kept that one thread busy while the workers waited on it. Each worker
 * process uses one instance for every file it runs, so a file and the servers it starts share a store.
 */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { createTables } from '#infra/local/emulators/dynamodb-local';
import type { TableId } from '#shared/store/table-specs';
import type { DynamoFixture } from './global-setup.ts';

/**
 * The endpoint, credentials and test tables of this worker's DynamoDB Local.
 *
 * @example
 * const { endpoint, credentials, tables } = workerDynamo();
 */
export function workerDynamo(): DynamoFixture {
  const instances = inject('dynamoInstances');
  const worker = Number(process.env.VITEST_POOL_ID ?? '1');
  return instances[(worker - 1) % instances.length]!;
}

/**
 * A set of tables of its own on this worker's DynamoDB Local, for a gateway that reads the table
 * streams. The run's shared tables carry every file's writes, and so their streams: two gateways
 * reading them at once (this worker's and another's on the same instance) would each fan out the
 * other's events, two tasks and two attempts per delivery, as no stage (one mapping per stream)
 * does. Own tables give the gateway its own writes only, as `npm start` has a store to itself.
 *
 * @example pointAtLocalDynamo(workerDynamo(), await tablesOfItsOwn('hooks'));
 */
export async function tablesOfItsOwn(label: string): Promise<Record<TableId, string>> {
  return (await createTables(workerDynamo(), `${label}-${randomUUID().slice(0, 8)}`)) as Record<TableId, string>;
}
