/** The CLI's stores on a set of DynamoDB tables, all through the process's one document client. */

import type { KeysStore } from '#shared/auth/key-records';
import { type ConversationsStore, createConversationsStore } from '#shared/store/conversations-store';
import { createDocumentsStore, type DocumentsStore } from '#shared/store/documents-store';
import { documentClient } from '#shared/store/dynamo-client';
import { createKeysStore } from '#shared/store/keys-store';
import { createReportingRowsStore, type ReportingRowsStore } from '#shared/store/reporting-rows-store';
import type { TableId } from '#shared/store/table-specs';
import { createVocJobsStore, type VocJobsStore } from '#shared/store/voc-jobs-store';

export interface TableStores {
  keys: KeysStore;
  conversations: ConversationsStore;
  documents: DocumentsStore;
  vocJobs: VocJobsStore;
  reportingRows: ReportingRowsStore;
}

export function openTableStores(tables: Record<TableId, string>): TableStores {
  const client = documentClient();
  return {
    keys: createKeysStore(client, tables.keys),
    conversations: createConversationsStore(client, tables.conversations),
    documents: createDocumentsStore(client, tables.documents),
    vocJobs: createVocJobsStore(client, tables.vocJobs),
    reportingRows: createReportingRowsStore(client, { rows: tables.reporting, counts: tables.reportingCounts }),
  };
}
