/**
 * Points this process's store code at DynamoDB Local: the standard endpoint variable, a region,
 * the installation's own credentials (they select its database: dynamodb-local.ts), and the
 * table-name variables CDK sets on a deployed function.
 */
import { type TableId, tableSpecs } from '#shared/store/table-specs';
import type { LocalDynamoConnection } from './dynamodb-local.ts';
import { LOCAL_REGION } from './local-identity.ts';

/**
 * The DynamoDB variables of a process whose store code uses `store` and `tables` (a child's environment).
 *
 * @example spawn(command, args, { env: { ...process.env, ...localDynamoVariables(dynamo, tables) } });
 */
export function localDynamoVariables(
  { endpoint, credentials }: LocalDynamoConnection,
  tables: Record<TableId, string>,
): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    ...Object.fromEntries(Object.entries(tables).map(([id, name]) => [tableSpecs[id as TableId].envVar, name])),
  };
}

/**
 * Sets this process's DynamoDB variables to `store` and `tables`, before its first store call.
 *
 * @example pointAtLocalDynamo(dynamo, await createTables(dynamo, LOCAL_STAGE));
 */
export function pointAtLocalDynamo(store: LocalDynamoConnection, tables: Record<TableId, string>): void {
  Object.assign(process.env, localDynamoVariables(store, tables));
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
}
