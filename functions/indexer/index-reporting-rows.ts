/**
 * The reporting table's stream -> OpenSearch (infra/README.md, OpenSearch layout). Puts the index
 * templates and their mappings once per container (the year indexes are created from them by the
 * first write to each; those that exist gain new fields), then indexes the batch and reports the records to retry (ReportBatchItemFailures). Env:
 * CXM_OPENSEARCH_ENDPOINT, CXM_OPENSEARCH_INDEX_PREFIX, CXM_OPENSEARCH_PRIMARY_SHARDS,
 * CXM_OPENSEARCH_REPLICAS (and AWS_REGION for signing).
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/http/logger';
import { APP_METRICS } from '#shared/http/metric-names';
import { opensearchIndexShards, opensearchSettings } from '#shared/settings/opensearch-settings';
import { createOpenSearchClient } from '#shared/store/opensearch-client';
import { ensureIndexTemplates } from '#shared/store/opensearch-ensure-index-templates';
import { indexReportingRecords } from '#shared/store/opensearch-index-rows';

const { endpoint, indexPrefix } = opensearchSettings();
const shards = opensearchIndexShards();
// Bulk requests may take longer than a page of a list; the function has 60 s.
const client = createOpenSearchClient({ endpoint, requestTimeoutMs: 20_000, maxRetries: 2 });
let templatesReady: Promise<void> | undefined;

export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  // Before any write: a year index created without its template would get dynamic mappings and
  // no read alias. A failed put is tried again by the next invocation instead of being remembered.
  templatesReady ??= ensureIndexTemplates(client, indexPrefix, shards).then(
    (refused) => {
      for (const { kind, reason } of refused)
        logger.warn('the year indexes that exist refused the mappings: new fields reach the next year only', {
          kind,
          reason,
        });
    },
    (error: unknown) => {
      templatesReady = undefined;
      throw error;
    },
  );
  await templatesReady;
  const { batchItemFailures, notIndexed } = await indexReportingRecords(client, indexPrefix, event.Records, logger);
  if (batchItemFailures.length > 0) logger.warn('records left for retry', { count: batchItemFailures.length });
  if (notIndexed > 0) {
    // Loaded when needed: most batches give up on nothing, and Powertools Metrics weighs on a cold start.
    const { countMetric, publishMetrics } = await import('#shared/http/metrics');
    countMetric(APP_METRICS.reportingRowNotIndexed, notIndexed);
    publishMetrics();
  }
  return { batchItemFailures };
};
