/**
 * The reporting lists on DynamoDB: a Query of the window index, `gsk BETWEEN pad(from) AND pad(to)`
 * (a key `pad(to)#id` sorts after `pad(to)`, so the window is exactly [from, to)); a page resumes
 * after the cursor's sort key. The total, asked on the first page only, comes from the list's
 * maintained counts (count-buckets.ts): a few Queries of whole hours, days and blocks, and a COUNT
 * of the rows in the parts of an hour at the window's edges, whatever the window's size.
 */
import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { planWindowCount } from '#shared/domain/reporting/count-buckets';
import { SearchUnavailableError } from './opensearch-errors.ts';
import { ReportPageBudget } from './report-page-budget.ts';
import type { ReportingIndex } from './reporting-index.ts';
import { countKey, listKey, rowKey, sortKey, timeKey } from './reporting-keys.ts';
import type { ReportingTables } from './reporting-rows-store.ts';
import { tableSpecs } from './table-specs.ts';

const INDEX = tableSpecs.reporting.indexes[0]!.name;

/** A failing reporting backend is 503 `Unavailable`, whichever backend it is. */
function unavailable(error: unknown): never {
  throw new SearchUnavailableError('the reporting table could not be read', { cause: error });
}

export function createDynamoReportingIndex(client: DynamoDBDocumentClient, tables: ReportingTables): ReportingIndex {
  const table = tables.rows;
  const windowCondition = {
    IndexName: INDEX,
    KeyConditionExpression: 'gpk = :gpk AND gsk BETWEEN :from AND :to',
  };

  /** Adds up what `measure` finds on every page of a Query (a failure is the backend's 503). */
  async function sumQuery(
    input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
    measure: (page: QueryCommandOutput) => number,
  ): Promise<number> {
    let total = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey })).catch(unavailable);
      total += measure(page);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return total;
  }

  async function windowTotal(gpk: string, from: number, to: number): Promise<number> {
    const { direct, runs } = planWindowCount(from, to);
    const parts = await Promise.all([
      // The rows themselves: only ever spans within two hours (planWindowCount).
      ...direct.map(([low, high]) =>
        sumQuery(
          {
            TableName: table,
            ...windowCondition,
            ExpressionAttributeValues: { ':gpk': gpk, ':from': timeKey(low), ':to': timeKey(high) },
            Select: 'COUNT',
          },
          (page) => page.Count ?? 0,
        ),
      ),
      // A run of buckets (sparse: only buckets that hold rows exist).
      ...runs.map((run) =>
        sumQuery(
          {
            TableName: tables.counts,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: {
              ':pk': gpk,
              ':from': countKey(run.level, run.first),
              ':to': countKey(run.level, run.last),
            },
            ProjectionExpression: '#rows',
            ExpressionAttributeNames: { '#rows': 'rows' },
          },
          (page) => (page.Items ?? []).reduce((sum, item) => sum + Number(item.rows ?? 0), 0),
        ),
      ),
    ]);
    return parts.reduce((sum, part) => sum + part, 0);
  }

  return {
    async page({ tenantId, kind, window, after, limit, withTotal, maxBytes }) {
      const gpk = listKey(tenantId, kind);
      const totalPromise = withTotal ? windowTotal(gpk, window.from, window.to) : undefined;
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
        more = !(result.Items ?? []).every((item) =>
          page.offer(String(item.row), [Number(item.datetimeMs), String(item.rowId)]),
        );
        startKey = result.LastEvaluatedKey;
        if (!startKey) break;
      }
      return { rows: page.rows, last: page.last, more, total: await totalPromise };
    },
  };
}
