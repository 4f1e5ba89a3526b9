/**
 * Writes shaped reporting rows to the reporting table, the lists' source of truth (DESIGN
 * section 4): by import and seed here, by upstream pipelines in production. Batched, 25 a request.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import type { ShapedRow } from '#shared/domain/reporting/report-rows';
import { listKey, rowKey, sortKey } from './reporting-keys.ts';

export interface ReportingRowsStore {
  putRows(tenantId: string, kind: ReportKind, rows: ShapedRow[]): Promise<void>;
}

/** The reporting table item of a shaped row (what the indexer later reads from the stream). */
export function reportingItem(tenantId: string, kind: ReportKind, shaped: ShapedRow) {
  return {
    pk: rowKey(tenantId, kind, shaped.id),
    gpk: listKey(tenantId, kind),
    gsk: sortKey(shaped.datetimeMs, shaped.id),
    tenantId,
    kind,
    rowId: shaped.id,
    datetimeMs: shaped.datetimeMs,
    row: JSON.stringify(shaped.row),
  };
}

export type ReportingItem = ReturnType<typeof reportingItem>;

const BATCH = 25;
const MAX_ATTEMPTS = 8;

export function createReportingRowsStore(client: DynamoDBDocumentClient, table: string): ReportingRowsStore {
  return {
    async putRows(tenantId, kind, rows) {
      for (let i = 0; i < rows.length; i += BATCH) {
        let requests = rows.slice(i, i + BATCH).map((shaped) => ({ PutRequest: { Item: reportingItem(tenantId, kind, shaped) } }));
        // BatchWrite may leave some items unprocessed under load: resend exactly those.
        for (let attempt = 0; requests.length > 0; attempt++) {
          if (attempt === MAX_ATTEMPTS) throw new Error(`${requests.length} reporting rows stayed unprocessed after ${MAX_ATTEMPTS} attempts`);
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * 2 ** attempt));
          const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
          requests = (UnprocessedItems?.[table] ?? []) as typeof requests;
        }
      }
    },
  };
}
