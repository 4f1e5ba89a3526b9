/**
 * The DynamoDB Local instance a test file talks to. The global setup starts several
 * (test/support/global-setup.ts, DYNAMO_INSTANCES): one emulator runs its writes one at a time,
 * and a whole run on one kept that one thread busy while the workers waited on it. Each worker
 * process uses one instance for every file it runs, so a file and the servers it starts share a store.
 */
import { inject } from 'vitest';
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
