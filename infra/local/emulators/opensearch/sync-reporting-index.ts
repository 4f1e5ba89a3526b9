/**
 * Brings the local engine's reporting indexes up to the reporting table, as a start of `npm start`
 * finds them: the engine holds what it indexed before, while rows may have been written or deleted
 * meanwhile (an import while the stack served reporting from DynamoDB, a start with a fresh engine
 * beside old data). Every row of the table is indexed at a version below any stream record written
 * since the start (opensearch-index-rows.ts, backfillVersion), and every document the table no
 * longer holds is deleted at that version; the indexer, reading the stream from the start on, wins
 * over both for a row written meanwhile.
 */
import { DynamoDBClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import type { AttributeValue } from 'aws-lambda';
import type { IndexShards } from '#shared/settings/opensearch-settings';
import { documentId } from '#shared/store/opensearch-bulk';
import type { OpenSearchClient } from '#shared/store/opensearch-client';
import { ensureIndexTemplates, type MappingRefused } from '#shared/store/opensearch-ensure-index-templates';
import {
  backfillVersion,
  type FailedItem,
  indexTableItems,
  removeDocumentsNotIn,
} from '#shared/store/opensearch-index-rows';
import type { LocalDynamoConnection } from '../dynamodb-local.ts';

export interface ReportingIndexSync {
  /** Rows of the table indexed. */
  rows: number;
  /** Kinds whose year indexes refused the current mappings: new fields reach their next year only. */
  mappingsRefused: MappingRefused[];
  /** Documents deleted because the table no longer holds their row. */
  removed: number;
  /** Rows that could not be indexed, with why. */
  failed: FailedItem[];
}

export interface SyncOptions {
  client: OpenSearchClient;
  prefix: string;
  shards: IndexShards;
  store: LocalDynamoConnection;
  region: string;
  /** The reporting table. */
  table: string;
  /** When the stream readers took their place: records from then on reach the engine through the indexer. */
  startedAtMs: number;
  /** Called after each page with the rows indexed so far. */
  onProgress?: (rows: number) => void;
}

/**
 * Indexes the table's rows and deletes what it no longer holds, then refreshes, so a list sees them.
 *
 * @example const { rows } = await syncReportingIndex({ client, prefix, shards, store, region, table, startedAtMs });
 */
export async function syncReportingIndex(options: SyncOptions): Promise<ReportingIndexSync> {
  const { client, prefix } = options;
  const version = backfillVersion(options.startedAtMs);
  // Before any write: a year index made without its template would get dynamic mappings.
  const mappingsRefused = await ensureIndexTemplates(client, prefix, options.shards);
  const dynamo = new DynamoDBClient({
    endpoint: options.store.endpoint,
    region: options.region,
    credentials: { ...options.store.credentials },
  });
  const kept = new Set<string>();
  const failed: FailedItem[] = [];
  let rows = 0;
  try {
    let startKey: ScanCommandOutput['LastEvaluatedKey'];
    do {
      const page = await dynamo.send(new ScanCommand({ TableName: options.table, ExclusiveStartKey: startKey }));
      const items = (page.Items ?? []) as Array<Record<string, AttributeValue>>;
      for (const item of items) if (item.pk?.S) kept.add(documentId(item.pk.S));
      const result = await indexTableItems(client, prefix, items, version);
      rows += result.indexed;
      failed.push(...result.failed);
      options.onProgress?.(rows);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  } finally {
    dynamo.destroy();
  }
  const removed = await removeDocumentsNotIn(client, prefix, kept, version);
  await client.request({ method: 'POST', path: `/${prefix}-*/_refresh` });
  return { rows, removed, failed, mappingsRefused };
}
