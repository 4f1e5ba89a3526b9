/**
 * The reporting lists on OpenSearch (production, D6): one search of the kind's index with the
 * tenant filter always applied and the window [from, to) on `datetimeMs`, sorted by
 * [datetimeMs, rowId] and resumed with `search_after`; one hit more than the limit tells whether
 * more remain; the total is counted (`track_total_hits`) on the first page only. Pages stop at the
 * byte budget exactly as the DynamoDB adapter's do. Any failure to get an answer is a
 * SearchUnavailableError (503 `Unavailable`), never an empty or partial list.
 */
import type { Client } from '@opensearch-project/opensearch';
import { SearchUnavailableError } from './opensearch-errors.ts';
import { reportingIndexName } from './opensearch-mappings.ts';
import { ReportPageBudget } from './report-page-budget.ts';
import type { ReportingIndex } from './reporting-index.ts';

interface SearchHit {
  _source?: { row?: unknown };
  sort?: unknown[];
}

interface SearchBody {
  hits?: { total?: { value?: unknown }; hits?: SearchHit[] };
}

function explain(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export function createOpenSearchReportingIndex(client: Client, prefix: string): ReportingIndex {
  return {
    async page({ tenantId, kind, window, after, limit, withTotal, maxBytes }) {
      const index = reportingIndexName(prefix, kind);
      let body: SearchBody;
      try {
        const response = await client.search({
          index,
          // An index that does not exist yet (a new stage, before its first row) is an empty list.
          ignore_unavailable: true,
          body: {
            query: {
              bool: {
                filter: [{ term: { tenantId } }, { range: { datetimeMs: { gte: window.from, lt: window.to } } }],
              },
            },
            sort: [{ datetimeMs: 'asc' }, { rowId: 'asc' }],
            ...(after && { search_after: after }),
            // One more than asked, to know whether more remain.
            size: limit + 1,
            track_total_hits: withTotal,
            _source: ['row'],
          },
        });
        body = response.body as SearchBody;
      } catch (error) {
        throw new SearchUnavailableError(`search of ${index} failed: ${explain(error)}`, { cause: error });
      }

      const hits = body.hits?.hits;
      const total = body.hits?.total?.value;
      if (!Array.isArray(hits) || (withTotal && typeof total !== 'number')) {
        throw new SearchUnavailableError(`search of ${index} answered without ${Array.isArray(hits) ? 'a total' : 'hits'}`);
      }
      const page = new ReportPageBudget(limit, maxBytes);
      let more = false;
      for (const hit of hits) {
        const row = hit._source?.row;
        const [datetimeMs, rowId] = hit.sort ?? [];
        if (typeof row !== 'string' || typeof datetimeMs !== 'number' || typeof rowId !== 'string') {
          throw new SearchUnavailableError(`search of ${index} returned a hit without its row or sort key`);
        }
        if (!page.offer(row, [datetimeMs, rowId])) {
          more = true;
          break;
        }
      }
      return { rows: page.rows, last: page.last, more, total: withTotal ? (total as number) : undefined };
    },
  };
}
