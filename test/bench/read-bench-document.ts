/**
 * The one DynamoDB call of the baseline and of every peer handler (test/bench/peers): a document
 * client over a default DynamoDBClient, and one GetItem. Shared so that the bundles differ only in
 * what wraps the call (nothing, or a framework), which is what the cold-start rows compare.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

// Created at import, as every function creates its client: its cost is part of each cold start.
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const table = process.env.CXM_TABLE_DOCUMENTS;

/** The document's JSON, or undefined when there is none. */
export async function readBenchDocument(
  tenantId: string | undefined,
  collection: string | undefined,
  docId: string | undefined,
): Promise<string | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: table, Key: { pk: `${tenantId}#${collection}`, sk: docId } }),
  );
  return Item ? String(Item.data) : undefined;
}
