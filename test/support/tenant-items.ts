/**
 * The keys of every item a tenant owns in a table (partition keys start `<tenant>#`:
 * shared/README.md, tables), found by a scan rather than by the keys a test expects: a write that
 * landed somewhere unexpected shows up too.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#shared/store/dynamo-client';

const SEGMENTS = 4;

export async function tenantItemKeys(table: string, tenantId: string): Promise<string[]> {
  const client = documentClient();
  const segments = await Promise.all(
    Array.from({ length: SEGMENTS }, async (_, segment) => {
      const found: string[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new ScanCommand({
            TableName: table,
            Segment: segment,
            TotalSegments: SEGMENTS,
            FilterExpression: 'begins_with(pk, :tenant)',
            ExpressionAttributeValues: { ':tenant': `${tenantId}#` },
            ProjectionExpression: 'pk, sk',
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of page.Items ?? [])
          found.push(item.sk === undefined ? String(item.pk) : `${String(item.pk)} ${String(item.sk)}`);
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return found;
    }),
  );
  return segments.flat().sort();
}
