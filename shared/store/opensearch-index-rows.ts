/**
 * The indexer's work: a batch of reporting-table stream records into OpenSearch with bulk
 * requests, answering which records failed (ReportBatchItemFailures) so Lambda retries exactly
 * from there. A request the cluster does not answer at all throws: the whole batch is retried
 * (and bisected), which the external versions make harmless.
 */
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { REPORT_KINDS } from '#shared/domain/reporting/report-cursor';
import {
  type BulkOperation,
  type BulkResponseItem,
  bulkBody,
  failedOperations,
  planBulk,
  planIndex,
} from './opensearch-bulk.ts';
import { type OpenSearchClient, OpenSearchResponseError } from './opensearch-client.ts';
import { reportingReadAlias } from './opensearch-index-names.ts';

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

/**
 * Indexes stored reporting items as the table holds them, each at the external `version`: a
 * backfill of the index from its table (the local engine at every start; a domain beside existing
 * rows). The version must be below that of any stream record written after the backfill began (its
 * time in whole seconds x 10^9, less one): a row changed meanwhile is then written by its record,
 * which wins whichever lands first. Answers how many were indexed and which could not be.
 *
 * @example await indexTableItems(client, 'cxm-local-reporting', page, backfillVersion(startedAt));
 */
export async function indexTableItems(
  client: OpenSearchClient,
  prefix: string,
  items: Array<Record<string, AttributeValue>>,
  version: bigint,
): Promise<{ indexed: number; failed: FailedItem[] }> {
  const operations: BulkOperation[] = [];
  const failed: FailedItem[] = [];
  for (const item of items) {
    const key = item.pk?.S ?? '(no pk)';
    const planned = planIndex(item, key, version, prefix);
    if ('operations' in planned) operations.push(...planned.operations);
    else failed.push({ key, reason: planned.reason });
  }
  let indexed = operations.length;
  for (const chunk of chunks(operations)) {
    const response = await client.request({ method: 'POST', path: '/_bulk', ndjson: bulkBody(chunk) });
    const answered = (response.body as { items?: BulkResponseItem[] } | undefined)?.items ?? [];
    for (const { operation, status, error } of failedOperations(chunk, answered)) {
      indexed--;
      failed.push({
        key: operation.sequenceNumber,
        reason: `bulk answered ${status ?? 'nothing'}: ${JSON.stringify(error)}`,
      });
    }
  }
  return { indexed, failed };
}

/** A table item the backfill could not index, by its row key. */
export interface FailedItem {
  key: string;
  reason: string;
}

/**
 * The version a backfill that starts at `startedAtMs` writes with: below every stream record's
 * from that second on (opensearch-bulk.ts, externalVersion).
 *
 * @example backfillVersion(Date.parse('2026-11-28T12:00:00Z')) // 1795867200n * 10n ** 9n - 1n
 */
export function backfillVersion(startedAtMs: number): bigint {
  return BigInt(Math.floor(startedAtMs / 1000)) * 10n ** 9n - 1n;
}

interface ScrollPage {
  _scroll_id?: string;
  hits?: { hits?: Array<{ _index: string; _id: string; fields?: { tenantId?: string[] } }> };
}

/**
 * Deletes every reporting document whose id is not in `kept` (the ids a backfill indexed), at the
 * backfill's `version`: a row the table no longer holds is no longer listed, while one written
 * since by its stream record (a higher version) is kept. Answers how many were deleted.
 *
 * @example await removeDocumentsNotIn(client, prefix, new Set(ids), backfillVersion(startedAt));
 */
export async function removeDocumentsNotIn(
  client: OpenSearchClient,
  prefix: string,
  kept: ReadonlySet<string>,
  version: bigint,
): Promise<number> {
  let removed = 0;
  for (const kind of REPORT_KINDS) {
    const alias = reportingReadAlias(prefix, kind);
    let page: ScrollPage;
    try {
      page = (
        await client.request({
          method: 'POST',
          path: `/${alias}/_search`,
          query: { scroll: '1m' },
          body: { size: 5000, sort: ['_doc'], _source: false, docvalue_fields: ['tenantId'] },
        })
      ).body as ScrollPage;
    } catch (error) {
      // No index of the kind yet: nothing to remove.
      if (error instanceof OpenSearchResponseError && error.statusCode === 404) continue;
      throw error;
    }
    for (;;) {
      const hits = page.hits?.hits ?? [];
      if (hits.length === 0) break;
      const absent = hits.filter((hit) => !kept.has(hit._id));
      if (absent.length > 0) {
        const lines = absent.map(
          (hit) =>
            // Written by hand: versions pass 2^53 (opensearch-bulk.ts).
            `{"delete":{"_index":${JSON.stringify(hit._index)},"_id":${JSON.stringify(hit._id)},"routing":${JSON.stringify(hit.fields?.tenantId?.[0] ?? '')},"version":${version},"version_type":"external"}}`,
        );
        await client.request({ method: 'POST', path: '/_bulk', ndjson: lines });
        removed += absent.length;
      }
      page = (
        await client.request({
          method: 'POST',
          path: '/_search/scroll',
          body: { scroll: '1m', scroll_id: page._scroll_id },
        })
      ).body as ScrollPage;
    }
    if (page._scroll_id)
      await client.request({ method: 'DELETE', path: '/_search/scroll', body: { scroll_id: page._scroll_id } });
  }
  return removed;
}
