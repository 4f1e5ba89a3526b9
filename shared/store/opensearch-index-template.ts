/**
 * The index template of a reporting list kind: OpenSearch applies it to each year index as the
 * indexer's first write creates it (opensearch-index-names.ts), so every year gets the same
 * mappings (routing required), the stage's shard counts and the read alias, and no index is ever
 * created by hand or by a dynamic mapping.
 */
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import type { IndexShards } from '#shared/settings/opensearch-settings';
import { reportingIndexPattern, reportingReadAlias } from './opensearch-index-names.ts';
import { REPORTING_INDEX_SETTINGS, reportingMappings, type TypeMapping } from './opensearch-mappings.ts';

/** The body of `POST _index_template/<name>` (a composable template), as far as ours fills it. */
export interface IndexTemplate {
  index_patterns: string[];
  priority: number;
  template: {
    settings: Record<string, string | number | boolean>;
    mappings: TypeMapping;
    aliases: Record<string, object>;
  };
  _meta: { description: string };
}

/**
 * Above OpenSearch's 0 and any catch-all template an operator might add (`*`): two templates of
 * equal priority whose patterns overlap are refused, and the higher one is the one applied.
 */
const TEMPLATE_PRIORITY = 200;

export function reportingIndexTemplate(prefix: string, kind: ReportKind, shards: IndexShards): IndexTemplate {
  return {
    index_patterns: [reportingIndexPattern(prefix, kind)],
    priority: TEMPLATE_PRIORITY,
    template: {
      settings: {
        ...REPORTING_INDEX_SETTINGS,
        // Fixed when an index is created: a changed stage setting shapes the next year's index.
        'index.number_of_shards': shards.primaries,
        'index.number_of_replicas': shards.replicas,
      },
      mappings: reportingMappings(kind),
      aliases: { [reportingReadAlias(prefix, kind)]: {} },
    },
    _meta: {
      description: `CXM reporting rows (${kind}), one index per UTC year of Datetime; written by the reporting indexer`,
    },
  };
}
