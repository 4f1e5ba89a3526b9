/**
 * The reporting table's stream -> OpenSearch (DESIGN section 4). Creates the indexes once per
 * container, then indexes the batch and reports the records to retry (ReportBatchItemFailures).
 * Env: CXM_OPENSEARCH_ENDPOINT, CXM_OPENSEARCH_INDEX_PREFIX (and AWS_REGION for signing).
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/http/logger';
import { createOpenSearchClient } from '#shared/store/opensearch-client';
import { ensureIndexes } from '#shared/store/opensearch-ensure-indexes';
import { indexReportingRecords } from '#shared/store/opensearch-index-rows';
import { opensearchSettings } from '#shared/store/opensearch-settings';

const { endpoint, indexPrefix } = opensearchSettings();
// Bulk requests may take longer than a page of a list; the function has 60 s.
const client = createOpenSearchClient({ endpoint, requestTimeoutMs: 20_000, maxRetries: 2 });
let indexesReady: Promise<void> | undefined;

export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  // A failed creation is tried again by the next invocation instead of being remembered.
  indexesReady ??= ensureIndexes(client, indexPrefix).catch((error: unknown) => {
    indexesReady = undefined;
    throw error;
  });
  await indexesReady;
  const result = await indexReportingRecords(client, indexPrefix, event.Records, logger);
  if (result.batchItemFailures.length > 0) logger.warn('records left for retry', { count: result.batchItemFailures.length });
  return result;
};
