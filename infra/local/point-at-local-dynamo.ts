/**
 * Points this process's store code at DynamoDB Local: the standard endpoint variable, a region,
 * the installation's own credentials (they select its database: dynamodb-local.ts), and the
 * table-name variables CDK sets on a deployed function.
 */
import { type TableId, tableSpecs } from '#shared/store/table-specs';
import { LOCAL_REGION, type LocalDynamoConnection } from './dynamodb-local.ts';

/**
 * Sets this process's DynamoDB variables to `store` and `tables`, before its first store call.
 *
 * @example pointAtLocalDynamo(dynamo, await createTables(dynamo, LOCAL_STAGE));
 */
export function pointAtLocalDynamo(
  { endpoint, credentials }: LocalDynamoConnection,
  tables: Record<TableId, string>,
): void {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
  process.env.AWS_REGION = LOCAL_REGION;
  process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  for (const [id, name] of Object.entries(tables)) process.env[tableSpecs[id as TableId].envVar] = name;
}
