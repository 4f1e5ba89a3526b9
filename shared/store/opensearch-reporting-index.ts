/**
 * The reporting lists on OpenSearch (production): one search of the kind's read alias (every
 * year index, opensearch-index-names.ts), routed by tenant so it reads one shard per year index,
 * with the tenant filter always applied (a shard holds many tenants) and the window [from, to) on
 * `datetimeMs`, sorted by [datetimeMs, rowId] and resumed with `search_after`; one hit more than
 * the limit tells whether more remain; the total is counted (`track_total_hits`) on the first page
 * only. Pages stop at the byte budget exactly as the DynamoDB adapter's do. Any failure to get a
 * whole answer is a SearchUnavailableError (503 `Unavailable`), never an empty or partial list.
 *
 * Deep pages need no point in time (PIT). [datetimeMs, rowId] is unique within a tenant's list
 * (the row id is its key) and totally ordered across indexes (the coordinating node merges the
 * shards' sorted hits), so each page is "the next `limit` rows after the cursor's key" however
 * many year indexes there are or appear. A row not written while an export pages keeps its key
 * in every page's view, so exactly one page serves it: no gap, no repeat, and the served rows add
 * up to the total fixed on the first page. What a PIT would add is a snapshot for rows that do
 * change meanwhile (one moved across the cursor is served twice or not at all; one inserted
 * behind it is not served); the DynamoDB adapter, which passes the same contract, reads the
 * latest state too, so the API cannot promise that snapshot on either backend. And a PIT would
 * cost more than it gives here: cursors are stateless and live 24 h, so a PIT per cursor would
 * pin segments (disk, heap) for abandoned exports, against a node-wide cap shared by every tenant
 * (`search.max_open_pit_context`, 300 per node by default); a short keep_alive would need the
 * plain search_after fallback anyway (as would a node restart or blue/green deploy, which lose
 * every PIT), making the snapshot a matter of timing that no client could rely on.
 */
import { type OpenSearchClient, OpenSearchResponseError } from './opensearch-client.ts';
import { SearchUnavailableError } from './opensearch-errors.ts';
import { reportingReadAlias } from './opensearch-index-names.ts';
import { ReportPageBudget } from './report-page-budget.ts';
import type { ReportingIndex } from './reporting-index.ts';

interface SearchHit {
  _source?: { row?: unknown };
  sort?: unknown[];
}

interface SearchBody {
  _shards?: { failed?: unknown };
  hits?: { total?: { value?: unknown }; hits?: SearchHit[] };
}

function explain(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * The alias is missing only until the first row of the kind creates its first year index (a new
 * stage): then the list is empty. Any other 404, or a missing index behind an alias, is a fault.
 */
function aliasMissing(error: unknown, alias: string): boolean {
  if (!(error instanceof OpenSearchResponseError) || error.statusCode !== 404) return false;
  const cause = (error.body as { error?: { type?: unknown; index?: unknown } } | undefined)?.error;
  return cause?.type === 'index_not_found_exception' && cause.index === alias;
}

export function createOpenSearchReportingIndex(client: OpenSearchClient, prefix: string): ReportingIndex {
  return {
    async page({ tenantId, kind, window, after, limit, withTotal, maxBytes }) {
      const alias = reportingReadAlias(prefix, kind);
      let body: SearchBody;
      try {
        const response = await client.request({
          method: 'POST',
          path: `/${alias}/_search`,
          // Not ignore_unavailable: it would also skip a closed year index and answer its rows
          // as absent. And a shard that cannot answer fails the search instead of leaving a hole.
          query: { routing: tenantId, allow_partial_search_results: 'false' },
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
        // An empty answer has no hits: the check below makes it the 503 it is.
        body = (response.body ?? {}) as SearchBody;
      } catch (error) {
        if (aliasMissing(error, alias))
          return { rows: [], last: undefined, more: false, total: withTotal ? 0 : undefined };
        throw new SearchUnavailableError(`search of ${alias} failed: ${explain(error)}`, { cause: error });
      }

      const hits = body.hits?.hits;
      const total = body.hits?.total?.value;
      if (!Array.isArray(hits) || (withTotal && typeof total !== 'number')) {
        throw new SearchUnavailableError(
          `search of ${alias} answered without ${Array.isArray(hits) ? 'a total' : 'hits'}`,
        );
      }
      const failedShards = body._shards?.failed;
      if (typeof failedShards === 'number' && failedShards > 0) {
        throw new SearchUnavailableError(`search of ${alias} answered with ${failedShards} failed shards`);
      }
      const page = new ReportPageBudget(limit, maxBytes);
      let more = false;
      for (const hit of hits) {
        const row = hit._source?.row;
        const [datetimeMs, rowId] = hit.sort ?? [];
        if (typeof row !== 'string' || typeof datetimeMs !== 'number' || typeof rowId !== 'string') {
          throw new SearchUnavailableError(`search of ${alias} returned a hit without its row or sort key`);
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
