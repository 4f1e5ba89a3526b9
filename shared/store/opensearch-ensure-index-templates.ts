/**
 * Puts the reporting index templates (opensearch-index-template.ts), one per list kind, and their
 * mappings on the year indexes that exist: the one-time setup of the reporting layout, run by the
 * indexer at each cold start before its first bulk request, since its writes are what create the
 * year indexes from the templates. A put replaces the template, so it is safe from several cold
 * starts at once, and a deploy that changes the mappings or the stage's shard counts reaches the
 * next index created. A mapping that gains a field reaches the existing indexes too (put through
 * the kind's read alias, which names them all): rows written from then on are indexed by it. A
 * change no existing index can take (a field's type) is refused by them, reported, and left to
 * the next year's index; the shard counts of an existing index never change.
 *
 * No index state management (ISM) policy is set up: every row stays listable and rewritable by id
 * for as long as the table holds it, so none of ISM's actions fits an older year (read-only or
 * force-merged indexes would refuse or waste a re-import's writes, fewer replicas would risk the
 * data, deleting one would drop rows the table still lists). Retention, once decided, is a
 * `DELETE <prefix>-<kind>-<year>` with the matching table rows (infra/README.md, "Choosing
 * the reporting backend").
 */
import { REPORT_KINDS, type ReportKind } from '#shared/domain/reporting/report-cursor';
import type { IndexShards } from '#shared/settings/opensearch-settings';
import { type OpenSearchClient, OpenSearchResponseError } from './opensearch-client.ts';
import { reportingReadAlias, reportingTemplateName } from './opensearch-index-names.ts';
import { reportingIndexTemplate } from './opensearch-index-template.ts';

/** A kind whose existing year indexes refused the template's mappings, and why. */
export interface MappingRefused {
  kind: ReportKind;
  reason: unknown;
}

/**
 * Puts both templates, then their mappings on the indexes that exist. Throws when a template
 * cannot be put (no write may create an index without it); answers the mappings refused.
 *
 * @example const refused = await ensureIndexTemplates(client, 'cxm-dev-reporting', { primaries: 1, replicas: 1 });
 */
export async function ensureIndexTemplates(
  client: OpenSearchClient,
  prefix: string,
  shards: IndexShards,
): Promise<MappingRefused[]> {
  const templates = REPORT_KINDS.map((kind) => ({ kind, template: reportingIndexTemplate(prefix, kind, shards) }));
  await Promise.all(
    templates.map(({ kind, template }) =>
      client.request({
        method: 'POST',
        path: `/_index_template/${reportingTemplateName(prefix, kind)}`,
        body: template,
      }),
    ),
  );
  const refused = await Promise.all(
    templates.map(async ({ kind, template }): Promise<MappingRefused | undefined> => {
      try {
        await client.request({
          method: 'PUT',
          path: `/${reportingReadAlias(prefix, kind)}/_mapping`,
          body: template.template.mappings,
        });
        return undefined;
      } catch (error) {
        if (!(error instanceof OpenSearchResponseError)) throw error;
        // No year index of the kind yet: the template shapes the first.
        if (error.statusCode === 404) return undefined;
        if (error.statusCode === 400) return { kind, reason: error.body };
        throw error;
      }
    }),
  );
  return refused.filter((entry): entry is MappingRefused => entry !== undefined);
}
