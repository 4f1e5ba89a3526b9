/**
 * The one DynamoDB document client of a process. The endpoint comes from the standard
 * `AWS_ENDPOINT_URL_DYNAMODB` variable (DynamoDB Local), credentials and region from the usual
 * chain, so the same code runs in Lambda, in the local runtime and in the CLI.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

let client: DynamoDBDocumentClient | undefined;

export function documentClient(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return client;
}
