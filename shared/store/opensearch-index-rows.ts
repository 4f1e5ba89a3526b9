/**
 * The indexer's work: a batch of reporting-table stream records into OpenSearch with bulk
 * requests, answering which records failed (ReportBatchItemFailures) so Lambda retries exactly
 * from there. A request the cluster does not answer at all throws: the whole batch is retried
 * (and bisected), which the external versions make harmless.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { type BulkOperation, type BulkResponseItem, bulkBody, failedOperations, planBulk } from './opensearch-bulk.ts';
import type { OpenSearchClient } from './opensearch-client.ts';

// Amazon OpenSearch Service refuses HTTP bodies over 10 MiB on its smallest instances; stay well under.
const MAX_REQUEST_BYTES = 5 * 1024 * 1024;

export interface IndexingLog {
  warn(message: string, extra: Record<string, unknown>): void;
}

function chunks(operations: BulkOperation[]): BulkOperation[][] {
  const result: BulkOperation[][] = [];
  let current: BulkOperation[] = [];
  let bytes = 0;
  for (const operation of operations) {
    const size = operation.lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    if (current.length > 0 && bytes + size > MAX_REQUEST_BYTES) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(operation);
    bytes += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}

export async function indexReportingRecords(
  client: OpenSearchClient,
  prefix: string,
  records: DynamoDBRecord[],
  log?: IndexingLog,
): Promise<DynamoDBBatchResponse> {
  const { operations, rejected } = planBulk(records, prefix);
  const failed = new Set<string>();
  for (const { sequenceNumber, reason } of rejected) {
    log?.warn('stream record cannot be indexed', { sequenceNumber, reason });
    failed.add(sequenceNumber);
  }
  for (const chunk of chunks(operations)) {
    // Our pre-serialised lines, as they are: their 64-bit versions would not survive JSON.stringify of numbers.
    const response = await client.request({ method: 'POST', path: '/_bulk', ndjson: bulkBody(chunk) });
    // No items (an empty answer included): every operation of the chunk counts as failed, and is retried.
    const items = (response.body as { items?: BulkResponseItem[] } | undefined)?.items ?? [];
    for (const { operation, status, error } of failedOperations(chunk, items)) {
      log?.warn('bulk operation failed', {
        sequenceNumber: operation.sequenceNumber,
        id: operation.id,
        index: operation.index,
        status,
        error,
      });
      failed.add(operation.sequenceNumber);
    }
  }
  // In record order, as Lambda resumes from the earliest one reported.
  return {
    batchItemFailures: records
      .map((record) => record.dynamodb?.SequenceNumber ?? '')
      .filter((sequenceNumber) => failed.has(sequenceNumber))
      .map((itemIdentifier) => ({ itemIdentifier })),
  };
}
