/**
 * The indexer's work: a batch of reporting-table stream records into OpenSearch with bulk
 * requests, answering which records failed (ReportBatchItemFailures) so Lambda retries exactly
 * from there. A request the cluster does not answer at all throws: the whole batch is retried
 * (and bisected), which the external versions make harmless.
 *
 * Only what a retry can change is retried: a record the engine throttled or failed on. One that
 * can never be indexed (a record that is no reporting row; an item the engine refuses as it is,
 * any other 4xx) is logged as an error and counted (`notIndexed`), and the stream moves on past it:
 * retried, it would hold back every later record of its shard until the mapping's age limit. Its
 * row stays in the table, and is indexed again by its next write or a backfill.
 */
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { REPORT_KINDS } from '#shared/domain/reporting/report-cursor';
import {
  type BulkOperation,
  type BulkResponseItem,
  bulkBody,
  failedOperations,
  operation,
  planBulk,
  planIndex,
} from './opensearch-bulk.ts';
import { type OpenSearchClient, OpenSearchResponseError } from './opensearch-client.ts';
import { reportingReadAlias } from './opensearch-index-names.ts';

// Amazon OpenSearch Service refuses HTTP bodies over 10 MiB on its smallest instances; stay well under.
const MAX_REQUEST_BYTES = 5 * 1024 * 1024;

export interface IndexingLog {
  warn(message: string, extra: Record<string, unknown>): void;
  error(message: string, extra: Record<string, unknown>): void;
}

/** The batch response, and how many records were given up on (never indexable). */
export interface IndexingResult extends DynamoDBBatchResponse {
  notIndexed: number;
}

/** A bulk item a retry may change: the engine throttled it or failed on it (or answered nothing). */
function retryable(status: number | undefined): boolean {
  return status === undefined || status === 429 || status >= 500;
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
): Promise<IndexingResult> {
  const { operations, rejected } = planBulk(records, prefix);
  const failed = new Set<string>();
  const given = new Set<string>();
  for (const { sequenceNumber, reason } of rejected) {
    log?.error('stream record cannot be indexed: not retried', { sequenceNumber, reason });
    given.add(sequenceNumber);
  }
  for (const chunk of chunks(operations)) {
    // Our pre-serialised lines, as they are: their 64-bit versions would not survive JSON.stringify of numbers.
    const response = await client.request({ method: 'POST', path: '/_bulk', ndjson: bulkBody(chunk) });
    // No items (an empty answer included): every operation of the chunk counts as failed, and is retried.
    const items = (response.body as { items?: BulkResponseItem[] } | undefined)?.items ?? [];
    for (const { operation, status, error } of failedOperations(chunk, items)) {
      const extra = {
        sequenceNumber: operation.sequenceNumber,
        id: operation.id,
        index: operation.index,
        status,
        error,
      };
      if (retryable(status)) {
        log?.warn('bulk operation failed: retried', extra);
        failed.add(operation.sequenceNumber);
      } else {
        log?.error('bulk operation refused: not retried', extra);
        given.add(operation.sequenceNumber);
      }
    }
  }
  // In record order, as Lambda resumes from the earliest one reported. A record both retried and
  // given up on (a move whose delete was throttled) is retried: its retry writes both again.
  for (const sequenceNumber of failed) given.delete(sequenceNumber);
  return {
    batchItemFailures: records
      .map((record) => record.dynamodb?.SequenceNumber ?? '')
      .filter((sequenceNumber) => failed.has(sequenceNumber))
      .map((itemIdentifier) => ({ itemIdentifier })),
    notIndexed: given.size,
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

/**
 * Sends deletes of documents the table no longer holds; answers how many were deleted. A 409 is a
 * document the stream wrote again meanwhile (a higher version), kept as it should be; anything
 * else that did not delete is thrown, so the sync reports it instead of leaving it listed.
 */
async function deleteAbsent(client: OpenSearchClient, deletes: BulkOperation[]): Promise<number> {
  const { body } = await client.request({ method: 'POST', path: '/_bulk', ndjson: bulkBody(deletes) });
  const items = (body as { items?: BulkResponseItem[] } | undefined)?.items ?? [];
  // failedOperations takes a 409 (a newer version) and a 404 (already gone) as done.
  const [refused] = failedOperations(deletes, items);
  if (refused)
    throw new Error(`deleting ${refused.operation.id} answered ${refused.status}: ${JSON.stringify(refused.error)}`);
  return items.filter((item) => item.delete?.status === 200).length;
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
      // A search sees refreshed documents only: one written a moment ago must be seen too.
      await client.request({ method: 'POST', path: `/${alias}/_refresh` });
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
      const absent = hits
        .filter((hit) => !kept.has(hit._id))
        .map((hit) =>
          operation(hit._id, 'delete', {
            index: hit._index,
            id: hit._id,
            routing: hit.fields?.tenantId?.[0] ?? '',
            version,
          }),
        );
      if (absent.length > 0) removed += await deleteAbsent(client, absent);
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
