/**
 * Which of the rows a writer stored the reporting lists cannot show yet, as it wrote them: a row
 * reaches OpenSearch a moment after its write (the indexer reads the table's stream), so a writer
 * that reports success only once its rows are listed (`cxm import`, `cxm seed`) asks this until
 * nothing is left. A document holds the version of a row whose text has the same digest
 * (opensearch-mappings.ts, rowHash); one indexed before documents carried it cannot tell, and is
 * taken as listed.
 */
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { type OpenSearchClient, OpenSearchResponseError } from './opensearch-client.ts';
import { reportingReadAlias } from './opensearch-index-names.ts';

/** Row ids per search: well under OpenSearch's limit of terms in a query. */
const IDS_PER_SEARCH = 1000;

interface Hit {
  fields?: { rowId?: string[]; rowHash?: string[] };
}

/**
 * The ids of `expected` (row id -> rowHash of the text written) whose document is not searchable
 * yet with that text, for one tenant's list of `kind`.
 *
 * @example const waiting = await rowsNotYetSearchable(client, 'cxm-dev-reporting', 'acme', 'voc', written);
 */
export async function rowsNotYetSearchable(
  client: OpenSearchClient,
  prefix: string,
  tenantId: string,
  kind: ReportKind,
  expected: ReadonlyMap<string, string>,
): Promise<string[]> {
  const ids = [...expected.keys()];
  const waiting: string[] = [];
  for (let start = 0; start < ids.length; start += IDS_PER_SEARCH) {
    const batch = ids.slice(start, start + IDS_PER_SEARCH);
    let hits: Hit[];
    try {
      const { body } = await client.request({
        method: 'POST',
        path: `/${reportingReadAlias(prefix, kind)}/_search`,
        query: { routing: tenantId },
        body: {
          size: batch.length,
          query: { bool: { filter: [{ term: { tenantId } }, { terms: { rowId: batch } }] } },
          _source: false,
          docvalue_fields: ['rowId', 'rowHash'],
        },
      });
      hits = (body as { hits?: { hits?: Hit[] } }).hits?.hits ?? [];
    } catch (error) {
      // No index of the kind yet: none of them is searchable.
      if (error instanceof OpenSearchResponseError && error.statusCode === 404) hits = [];
      else throw error;
    }
    const found = new Map(hits.map((hit) => [hit.fields?.rowId?.[0], hit.fields?.rowHash?.[0]]));
    for (const id of batch) {
      const hash = found.get(id);
      const listed = found.has(id) && (hash === undefined || hash === expected.get(id));
      if (!listed) waiting.push(id);
    }
  }
  return waiting;
}
