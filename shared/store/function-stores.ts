/**
 * A function's stores, each bound at cold start to its table (named by the environment CDK or the
 * local runtime set: a misconfigured function fails there, loudly) and the process's one document
 * client. Functions take their stores from here and only here; which table a store works on is
 * said once, in table-stores.ts, which the CLI, the local runtime and the tests bind through too.
 *
 * One export per store, not an object of them: esbuild keeps in a bundle only the stores its
 * function calls for (and none, with no DynamoDB client, for a list of an OpenSearch stage: the
 * project's modules are declared free of side effects).
 */

import { SQSClient } from '@aws-sdk/client-sqs';
import { idempotencyTtlMs } from '#shared/settings/idempotency-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { tableName } from '#shared/settings/table-settings';
import { webhookQueueUrl } from '#shared/settings/webhook-settings';
import { createSqsDeliveryQueue, type DeliveryQueue } from './delivery-queue.ts';
import { documentClient } from './dynamo-client.ts';
import type { ReportingIndex } from './reporting-index.ts';
import { SDK_CLIENT_OPTIONS } from './sdk-client-options.ts';
import type { TableId } from './table-specs.ts';
import {
  bindConversationsStore,
  bindDocumentsStore,
  bindDynamoReportingIndex,
  bindIdempotencyLedger,
  bindKeysStore,
  bindReportingRowsStore,
  bindVocJobsStore,
  bindWebhookDeliveriesStore,
  bindWebhookEndpointsStore,
} from './table-stores.ts';

export const keysStore = () => bindKeysStore(documentClient(), tableName);
export const conversationsStore = () => bindConversationsStore(documentClient(), tableName);
export const documentsStore = () => bindDocumentsStore(documentClient(), tableName);
export const vocJobsStore = () => bindVocJobsStore(documentClient(), tableName);
export const reportingRowsStore = () => bindReportingRowsStore(documentClient(), tableName);
export const webhookEndpointsStore = () => bindWebhookEndpointsStore(documentClient(), tableName);
export const webhookDeliveriesStore = () => bindWebhookDeliveriesStore(documentClient(), tableName);
export const idempotencyLedger = () => bindIdempotencyLedger(documentClient(), tableName, idempotencyTtlMs());

/**
 * The queue of webhook delivery tasks (its URL from the environment CDK or the local runtime set).
 *
 * @example const queue = webhookDeliveryQueue(); await queue.send(tasks, 0);
 */
export function webhookDeliveryQueue(): DeliveryQueue {
  return createSqsDeliveryQueue(new SQSClient({ ...SDK_CLIENT_OPTIONS }), webhookQueueUrl());
}

/** The tables the DynamoDB window index reads: a list on an OpenSearch stage has no use for them. */
export const DYNAMO_INDEX_TABLES: readonly TableId[] = ['reporting', 'reportingCounts'];

/**
 * The reporting index, chosen by the stage (CXM_REPORTING_BACKEND, set by CDK): OpenSearch where
 * the stage has a domain, else the reporting table's window index (the local default). The
 * OpenSearch adapter is imported only on its own branch, so a DynamoDB stage never initialises the
 * OpenSearch client and its signer; and a deployed bundle has the variable compiled in
 * (infra/cdk/constructs/route-bundling.ts), so esbuild leaves the other backend's branch
 * and modules out of it. The variable is read in each test, written out as
 * `process.env.CXM_REPORTING_BACKEND` and not copied to a local, so that the compiled-in constant
 * folds there. FUNCTION_ENV.reportingBackend names it for the define; should the two part, a
 * DynamoDB stage's list would carry the OpenSearch client, which integration/bundle-wiring refuses,
 * and an OpenSearch stage's list the DynamoDB client, which infra/bundles refuses.
 */
export function reportingIndex(): Promise<ReportingIndex> {
  // A conditional expression, not an early return: esbuild drops the branch a folded condition
  // does not take, where it keeps whatever follows an `if` that returns.
  return process.env.CXM_REPORTING_BACKEND === 'opensearch' ? openSearchReportingIndex() : dynamoReportingIndex();
}

async function openSearchReportingIndex(): Promise<ReportingIndex> {
  const [{ opensearchSettings }, { createOpenSearchClient }, { createOpenSearchReportingIndex }] = await Promise.all([
    import('#shared/settings/opensearch-settings'),
    import('./opensearch-client.ts'),
    import('./opensearch-reporting-index.ts'),
  ]);
  const settings = opensearchSettings();
  return createOpenSearchReportingIndex(createOpenSearchClient({ endpoint: settings.endpoint }), settings.indexPrefix);
}

async function dynamoReportingIndex(): Promise<ReportingIndex> {
  const backend = process.env.CXM_REPORTING_BACKEND ?? 'dynamodb';
  if (backend !== 'dynamodb')
    throw new Error(`${FUNCTION_ENV.reportingBackend} must be opensearch or dynamodb, not ${backend}`);
  return bindDynamoReportingIndex(documentClient(), tableName);
}
