/**
 * Puts the reporting index templates (opensearch-index-template.ts), one per list kind: the
 * one-time setup of the reporting layout, run by the indexer at each cold start before its first
 * bulk request, since its writes are what create the year indexes from them. A put replaces the
 * template, so it is safe from several cold starts at once and a deploy that changes the mappings
 * or the stage's shard counts reaches the next index created; indexes that exist keep theirs.
 *
 * No index state management (ISM) policy is set up: every row stays listable and rewritable by id
 * for as long as the table holds it, so none of ISM's actions fits an older year (read-only or
 * force-merged indexes would refuse or waste a re-import's writes, fewer replicas would risk the
 * data, deleting one would drop rows the table still lists). Retention, once decided, is a
 * `DELETE <prefix>-<kind>-<year>` with the matching table rows (infra/README.md, "Choosing
 * the reporting backend").
 */
import { REPORT_KINDS } from '#shared/domain/reporting/report-cursor';
import type { OpenSearchClient } from './opensearch-client.ts';
import { reportingTemplateName } from './opensearch-index-names.ts';
import { reportingIndexTemplate } from './opensearch-index-template.ts';
import type { IndexShards } from './opensearch-settings.ts';

export async function ensureIndexTemplates(
  client: OpenSearchClient,
  prefix: string,
  shards: IndexShards,
): Promise<void> {
  await Promise.all(
    REPORT_KINDS.map((kind) =>
      client.request({
        method: 'POST',
        path: `/_index_template/${reportingTemplateName(prefix, kind)}`,
        body: reportingIndexTemplate(prefix, kind, shards),
      }),
    ),
  );
}
