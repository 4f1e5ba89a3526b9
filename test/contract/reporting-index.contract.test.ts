/**
 * Both ReportingIndex adapters against one contract (the reporting lists): DynamoDB on the run's
 * DynamoDB Local, OpenSearch on the run's OpenSearch engine (the version the stages run), under an
 * index prefix of its own: the index templates are put as the indexer puts them, the year indexes
 * they make and the templates are removed afterwards. Rows are written by the rows store in both
 * cases; for OpenSearch they then travel the indexer's path (the stored items as
 * NEW_AND_OLD_IMAGES stream records, through the bulk code). Neither half is ever skipped.
 */

import { randomUUID } from 'node:crypto';
import { type AttributeValue, DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject } from 'vitest';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { documentClient } from '#shared/store/dynamo-client';
import type { OpenSearchClient } from '#shared/store/opensearch-client';
import { ensureIndexTemplates } from '#shared/store/opensearch-ensure-index-templates';
import { reportingIndexPattern, reportingTemplateName } from '#shared/store/opensearch-index-names';
import { indexReportingRecords } from '#shared/store/opensearch-index-rows';
import { createOpenSearchReportingIndex } from '#shared/store/opensearch-reporting-index';
import { listKey } from '#shared/store/reporting-keys';
import { tableSpecs } from '#shared/store/table-specs';
import { bindDynamoReportingIndex, bindReportingRowsStore } from '#shared/store/table-stores';
import { type ContractSubject, reportingIndexContract } from '#test/support/reporting-index-contract';
import { sequenceNumber, writeRecord } from '#test/support/reporting-stream-records';
import { runOpenSearch } from '#test/support/run-opensearch';
import { workerDynamo } from '#test/support/worker-dynamo';

function localTables() {
  const { tables, ...store } = workerDynamo();
  pointAtLocalDynamo(store, tables);
  return tables;
}

describe('ReportingIndex contract: DynamoDB adapter on DynamoDB Local', () => {
  let subject: ContractSubject;
  beforeAll(() => {
    const tables = localTables();
    const rows = bindReportingRowsStore(documentClient(), tables);
    subject = {
      index: bindDynamoReportingIndex(documentClient(), tables),
      seed: (tenantId, kind, shaped) => rows.putRows(tenantId, kind, shaped),
    };
  });
  reportingIndexContract(() => subject);
});

describe(`ReportingIndex contract: OpenSearch adapter on the run's OpenSearch ${inject('opensearch').version}`, () => {
  const prefix = `cxm-contract-${randomUUID().slice(0, 8)}`;
  let client: OpenSearchClient;
  let dynamo: DynamoDBClient | undefined;
  let subject: ContractSubject;
  let sequence = 0n;
  // What the stream's old images would show: the item as last sent, by key.
  const sent = new Map<string, Record<string, AttributeValue>>();
  const kinds = ['assistant', 'voc'] as const;

  beforeAll(async () => {
    const tables = localTables();
    client = runOpenSearch().client;
    // Two primaries, so the routing picks a shard and a write routed otherwise than the search
    // would lose rows; no replica, which a one-node test cluster could not assign.
    await ensureIndexTemplates(client, prefix, { primaries: 2, replicas: 0 });
    const rows = bindReportingRowsStore(documentClient(), tables);
    const streamSource = new DynamoDBClient({});
    dynamo = streamSource;
    subject = {
      index: createOpenSearchReportingIndex(client, prefix),
      async seed(tenantId, kind, shaped) {
        await rows.putRows(tenantId, kind, shaped);
        // The stored items, as the table's stream would carry them to the indexer.
        const items: Array<Record<string, AttributeValue>> = [];
        let startKey: Record<string, AttributeValue> | undefined;
        do {
          const page = await streamSource.send(
            new QueryCommand({
              TableName: tables.reporting,
              IndexName: tableSpecs.reporting.indexes[0]!.name,
              KeyConditionExpression: 'gpk = :gpk',
              ExpressionAttributeValues: { ':gpk': { S: listKey(tenantId, kind) } },
              ExclusiveStartKey: startKey,
            }),
          );
          items.push(...(page.Items ?? []));
          startKey = page.LastEvaluatedKey;
        } while (startKey);
        const seconds = Math.floor(Date.now() / 1000);
        const records = items.map((item) => {
          const before = sent.get(item.pk!.S!);
          sent.set(item.pk!.S!, item);
          return writeRecord(
            item,
            { sequenceNumber: sequenceNumber(++sequence), seconds },
            before ? 'MODIFY' : 'INSERT',
            before,
          );
        });
        expect(await indexReportingRecords(client, prefix, records)).toEqual({ batchItemFailures: [], notIndexed: 0 });
        await client.request({
          method: 'POST',
          path: `/${kinds.map((kind) => reportingIndexPattern(prefix, kind)).join(',')}/_refresh`,
        });
      },
    };
  });

  afterAll(async () => {
    dynamo?.destroy();
    if (!client) return;
    // By name: a cluster may refuse wildcard deletes (action.destructive_requires_name).
    const { body } = await client.request({
      method: 'GET',
      path: `/${kinds.map((kind) => reportingIndexPattern(prefix, kind)).join(',')}`,
    });
    const names = Object.keys(body as Record<string, unknown>);
    if (names.length > 0) await client.request({ method: 'DELETE', path: `/${names.join(',')}` });
    await Promise.all(
      kinds.map((kind) =>
        client.request({ method: 'DELETE', path: `/_index_template/${reportingTemplateName(prefix, kind)}` }),
      ),
    );
  });

  reportingIndexContract(() => subject);
});
