/**
 * The reporting lists on DynamoDB: a Query of the window index, `gsk BETWEEN pad(from) AND pad(to)`
 * (a key `pad(to)#id` sorts after `pad(to)`, so the window is exactly [from, to)); a page resumes
 * after the cursor's sort key; the total is a COUNT of the window, asked on the first page only.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SearchUnavailableError } from './opensearch-errors.ts';
import { ReportPageBudget } from './report-page-budget.ts';
import type { ReportingIndex } from './reporting-index.ts';
import { listKey, rowKey, sortKey, timeKey } from './reporting-keys.ts';
import { tableSpecs } from './table-specs.ts';

const INDEX = tableSpecs.reporting.indexes[0]!.name;

/** D3: a failing reporting backend is 503 `Unavailable`, whichever backend it is. */
function unavailable(error: unknown): never {
  throw new SearchUnavailableError('the reporting table could not be read', { cause: error });
}

export function createDynamoReportingIndex(client: DynamoDBDocumentClient, table: string): ReportingIndex {
  const windowCondition = {
    IndexName: INDEX,
    KeyConditionExpression: 'gpk = :gpk AND gsk BETWEEN :from AND :to',
  };

  async function count(gpk: string, from: number, to: number): Promise<number> {
    let total = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client
        .send(
          new QueryCommand({
            TableName: table,
            ...windowCondition,
            ExpressionAttributeValues: { ':gpk': gpk, ':from': timeKey(from), ':to': timeKey(to) },
            Select: 'COUNT',
            ExclusiveStartKey: startKey,
          }),
        )
        .catch(unavailable);
      total += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return total;
  }

  return {
    async page({ tenantId, kind, window, after, limit, withTotal, maxBytes }) {
      const gpk = listKey(tenantId, kind);
      const totalPromise = withTotal ? count(gpk, window.from, window.to) : undefined;
      // If the page query fails first, the count is never awaited: its rejection must not be
      // left unhandled (Node ends the process for one). The page's own error is what answers.
      totalPromise?.catch(() => undefined);
      const page = new ReportPageBudget(limit, maxBytes);
      let startKey: Record<string, unknown> | undefined = after
        ? { gpk, gsk: sortKey(after[0], after[1]), pk: rowKey(tenantId, kind, after[1]) }
        : undefined;
      let more = false;
      while (!more) {
        const result = await client
          .send(
            new QueryCommand({
              TableName: table,
              ...windowCondition,
              ExpressionAttributeValues: { ':gpk': gpk, ':from': timeKey(window.from), ':to': timeKey(window.to) },
              ProjectionExpression: '#row, datetimeMs, rowId',
              ExpressionAttributeNames: { '#row': 'row' },
              ExclusiveStartKey: startKey,
              Limit: page.wanted,
            }),
          )
          .catch(unavailable);
        more = !(result.Items ?? []).every((item) => page.offer(String(item.row), [Number(item.datetimeMs), String(item.rowId)]));
        startKey = result.LastEvaluatedKey;
        if (!startKey) break;
      }
      return { rows: page.rows, last: page.last, more, total: await totalPromise };
    },
  };
}
