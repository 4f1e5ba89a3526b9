/**
 * The bench's baseline function: a bare handler holding a DynamoDB document client and doing one
 * GetItem, with no chain, no validation and no logging. Its bundle (same esbuild settings as every
 * function) is what bundle sizes and cold starts are compared with.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const table = process.env.CXM_TABLE_DOCUMENTS;

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const { tenantId, collection, docId } = event.pathParameters ?? {};
  const { Item } = await client.send(new GetCommand({ TableName: table, Key: { pk: `${tenantId}#${collection}`, sk: docId } }));
  return Item ? { statusCode: 200, body: String(Item.data) } : { statusCode: 404, body: '' };
};
