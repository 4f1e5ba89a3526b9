/**
 * Which table each store works on, said once. A deployed function binds its stores through
 * function-stores.ts (its tables from the environment, the process's one client); the CLI, the
 * local runtime's demo tenant, the tests and the bench bind all of them at once with
 * bindTableStores, on the tables and the client they hold. Each binder is an export of its own,
 * so a bundle keeps only the stores its function calls for.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeysStore } from '#shared/auth/key-records';
import type { VersionRetention } from '#shared/domain/documents/document-versions';
import { documentVersionRetention } from '#shared/settings/document-settings';
import { type ConversationsStore, createConversationsStore } from './conversations-store.ts';
import { createDocumentsStore, type DocumentsStore } from './documents-store.ts';
import { createDynamoReportingIndex } from './dynamo-reporting-index.ts';
import { createIdempotencyLedger } from './idempotency-ledger.ts';
import { createKeysStore } from './keys-store.ts';
import type { ReportingIndex } from './reporting-index.ts';
import { createReportingRowsStore, type ReportingRowsStore } from './reporting-rows-store.ts';
import type { TableId } from './table-specs.ts';
import { createVocJobsStore, type VocJobsStore } from './voc-jobs-store.ts';
import { createWebhookDeliveriesStore, type WebhookDeliveriesStore } from './webhook-deliveries-store.ts';
import { createWebhookEndpointsStore, type WebhookEndpointsStore } from './webhook-endpoints-store.ts';

/** The physical name of each table: a record (the CLI's, a test's) or a lookup (a function's environment). */
export type TableNames = Readonly<Record<TableId, string>> | ((id: TableId) => string);

const named = (tables: TableNames, id: TableId): string => (typeof tables === 'function' ? tables(id) : tables[id]);

/** The reporting rows and their counts: written by the rows store, read by the DynamoDB window index. */
const reportingTables = (tables: TableNames) => ({
  rows: named(tables, 'reporting'),
  counts: named(tables, 'reportingCounts'),
});

/** @example bindKeysStore(documentClient(), tableName) */
export const bindKeysStore = (client: DynamoDBDocumentClient, tables: TableNames): KeysStore =>
  createKeysStore(client, named(tables, 'keys'));

/** @example bindConversationsStore(documentClient(), tableName) */
export const bindConversationsStore = (client: DynamoDBDocumentClient, tables: TableNames): ConversationsStore =>
  createConversationsStore(client, named(tables, 'conversations'));

/**
 * The documents and their history, kept as `retention` says (the stage's, from the environment, by default).
 *
 * @example bindDocumentsStore(documentClient(), tableName)
 */
export const bindDocumentsStore = (
  client: DynamoDBDocumentClient,
  tables: TableNames,
  retention: VersionRetention = documentVersionRetention(),
): DocumentsStore =>
  createDocumentsStore(
    client,
    { documents: named(tables, 'documents'), versions: () => named(tables, 'documentVersions') },
    retention,
  );

/** @example bindVocJobsStore(documentClient(), tableName) */
export const bindVocJobsStore = (client: DynamoDBDocumentClient, tables: TableNames): VocJobsStore =>
  createVocJobsStore(client, named(tables, 'vocJobs'));

/** @example bindWebhookEndpointsStore(documentClient(), tableName) */
export const bindWebhookEndpointsStore = (client: DynamoDBDocumentClient, tables: TableNames): WebhookEndpointsStore =>
  createWebhookEndpointsStore(client, named(tables, 'webhookEndpoints'));

/** @example bindWebhookDeliveriesStore(documentClient(), tableName) */
export const bindWebhookDeliveriesStore = (
  client: DynamoDBDocumentClient,
  tables: TableNames,
): WebhookDeliveriesStore => createWebhookDeliveriesStore(client, named(tables, 'webhookDeliveries'));

/** @example bindReportingRowsStore(documentClient(), tableName) */
export const bindReportingRowsStore = (client: DynamoDBDocumentClient, tables: TableNames): ReportingRowsStore =>
  createReportingRowsStore(client, reportingTables(tables));

/** The window index over the reporting rows and counts (a DynamoDB stage's reporting index). */
export const bindDynamoReportingIndex = (client: DynamoDBDocumentClient, tables: TableNames): ReportingIndex =>
  createDynamoReportingIndex(client, reportingTables(tables));

/** @example bindIdempotencyLedger(documentClient(), tableName, idempotencyTtlMs()) */
export const bindIdempotencyLedger = (client: DynamoDBDocumentClient, tables: TableNames, ttlMs: number) =>
  createIdempotencyLedger(client, named(tables, 'idempotency'), ttlMs);

/** The stores that hold a tenant's data and keys, on one client. */
export interface TableStores {
  keys: KeysStore;
  conversations: ConversationsStore;
  documents: DocumentsStore;
  vocJobs: VocJobsStore;
  reportingRows: ReportingRowsStore;
  webhookEndpoints: WebhookEndpointsStore;
  webhookDeliveries: WebhookDeliveriesStore;
}

/**
 * Every data store on `tables`, through `client`; documents keep `retention` of their history (the
 * stage's, which an operator's command reads from the stage's settings).
 *
 * @example const { keys, conversations } = bindTableStores(client, workerDynamo().tables);
 */
export function bindTableStores(
  client: DynamoDBDocumentClient,
  tables: TableNames,
  retention: VersionRetention = documentVersionRetention(),
): TableStores {
  return {
    keys: bindKeysStore(client, tables),
    conversations: bindConversationsStore(client, tables),
    documents: bindDocumentsStore(client, tables, retention),
    vocJobs: bindVocJobsStore(client, tables),
    reportingRows: bindReportingRowsStore(client, tables),
    webhookEndpoints: bindWebhookEndpointsStore(client, tables),
    webhookDeliveries: bindWebhookDeliveriesStore(client, tables),
  };
}
