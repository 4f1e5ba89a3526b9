/**
 * The one DynamoDB document client of a process. The endpoint comes from the standard
 * `AWS_ENDPOINT_URL_DYNAMODB` variable (DynamoDB Local), credentials and region from the usual
 * chain, so the same code runs in Lambda, in the local runtime and in the CLI.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SDK_CLIENT_OPTIONS } from './sdk-client-options.ts';

let client: DynamoDBDocumentClient | undefined;

/**
 * A document client over `dynamo`, marshalling as every store expects: attributes left undefined
 * are left out of the item.
 *
 * @example const stores = bindTableStores(documentClientOver(new DynamoDBClient({ endpoint })), tables);
 */
export function documentClientOver(dynamo: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
}

/** The process's one document client (a function's stores share it). */
export function documentClient(): DynamoDBDocumentClient {
  client ??= documentClientOver(new DynamoDBClient({ ...SDK_CLIENT_OPTIONS }));
  return client;
}
