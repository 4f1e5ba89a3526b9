/**
 * The bench's baseline function: a bare handler holding a DynamoDB document client and doing one
 * GetItem, with no chain, no validation and no logging. Its bundle, made as anyone would bundle a
 * handler (minified, no keepNames; measure-bundles.ts), is what bundle sizes and cold starts are
 * compared with.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { readBenchDocument } from './read-bench-document.ts';

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const { tenantId, collection, docId } = event.pathParameters ?? {};
  const data = await readBenchDocument(tenantId, collection, docId);
  return data === undefined ? { statusCode: 404, body: '' } : { statusCode: 200, body: data };
};
