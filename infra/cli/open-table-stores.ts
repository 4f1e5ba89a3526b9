/** The CLI's stores on a set of DynamoDB tables, all through one document client of the run. */

import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeysStore } from '#shared/auth/key-records';
import { type ConversationsStore, createConversationsStore } from '#shared/store/conversations-store';
import { createDocumentsStore, type DocumentsStore } from '#shared/store/documents-store';
import { createKeysStore } from '#shared/store/keys-store';
import { createReportingRowsStore, type ReportingRowsStore } from '#shared/store/reporting-rows-store';
import type { TableId } from '#shared/store/table-specs';
import { createVocJobsStore, type VocJobsStore } from '#shared/store/voc-jobs-store';
import type { CliContext } from './cli-context.ts';

export interface TableStores {
  keys: KeysStore;
  conversations: ConversationsStore;
  documents: DocumentsStore;
  vocJobs: VocJobsStore;
  reportingRows: ReportingRowsStore;
}

/**
 * Every store of the CLI on `tables`, through a DynamoDB client built with `config` that the run
 * owns (destroyed when it ends).
 *
 * @example const stores = openTableStores(cli, tables, awsClientConfig(cli.env, 'DynamoDB'));
 */
export function openTableStores(cli: Pick<CliContext, 'own'>, tables: Record<TableId, string>, config: DynamoDBClientConfig): TableStores {
  const client = DynamoDBDocumentClient.from(cli.own(new DynamoDBClient(config)), { marshallOptions: { removeUndefinedValues: true } });
  return {
    keys: createKeysStore(client, tables.keys),
    conversations: createConversationsStore(client, tables.conversations),
    documents: createDocumentsStore(client, tables.documents),
    vocJobs: createVocJobsStore(client, tables.vocJobs),
    reportingRows: createReportingRowsStore(client, { rows: tables.reporting, counts: tables.reportingCounts }),
  };
}
