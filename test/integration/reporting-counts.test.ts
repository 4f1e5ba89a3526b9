/**
 * A DynamoDB-backed list's `total` comes from counts that the row writes keep: it must
 * equal counting the window's rows one by one, after imports, re-imports that move rows in time,
 * deletes, concurrent imports of the same rows, and an SDK retry of a transaction that had
 * committed. The truth each time is a COUNT query of the window index (what counting one by one
 * costs, which the counts avoid); `rebuildCounts` recomputing the same counts from the rows proves none drifted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { writeLocalState } from '#infra/local/local-state';
import { type ShapedRow, shapeRow } from '#shared/domain/reporting/report-rows';
import { createTableInput } from '#shared/store/create-table-input';
import { documentClient } from '#shared/store/dynamo-client';
import { createDynamoReportingIndex } from '#shared/store/dynamo-reporting-index';
import { listKey, timeKey } from '#shared/store/reporting-keys';
import { createReportingRowsStore, type ReportingTables, reportingItem } from '#shared/store/reporting-rows-store';
import { physicalTableName, tableSpecs } from '#shared/store/table-specs';
import { cxm } from '#test/support/cli-harness';
import { type DynamoFaultProxy, startDynamoFaultProxy } from '#test/support/dynamo-fault-proxy';
import { uniqueTenant } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2024, 0, 1);

let tables: ReportingTables;
let proxy: DynamoFaultProxy;

beforeAll(async () => {
  const { endpoint, credentials, tables: all } = workerDynamo();
  pointAtLocalDynamo({ endpoint, credentials }, all);
  tables = { rows: all.reporting, counts: all.reportingCounts };
  proxy = await startDynamoFaultProxy(endpoint);
});

afterAll(() => proxy?.close());

/** A deterministic spread: rows over about three years, with clusters inside single hours. */
function rowsAt(tenantId: string, ids: string[], seed: number): ShapedRow[] {
  return ids.map((id, index) => {
    const n = (index * 7919 + seed * 104_729) % 1_000_003;
    const datetime =
      index % 5 === 0
        ? START + 400 * DAY + (n % 50) * 60_000
        : START + (n % (3 * 365)) * DAY + (n % 24) * HOUR + (n % 3_600) * 1000;
    return shapeRow('assistant', tenantId, { ID: id, Datetime: datetime });
  });
}

/** The window's rows counted one by one on the window index. */
async function countedRows(tenantId: string, from: number, to: number): Promise<number> {
  let total = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tables.rows,
        IndexName: tableSpecs.reporting.indexes[0]!.name,
        KeyConditionExpression: 'gpk = :gpk AND gsk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':gpk': listKey(tenantId, 'assistant'),
          ':from': timeKey(from),
          ':to': timeKey(to),
        },
        Select: 'COUNT',
        ExclusiveStartKey: startKey,
      }),
    );
    total += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return total;
}

/** Windows of every shape: whole years, unaligned edges, within one hour, empty, before and after all rows. */
function windows(): Array<[number, number]> {
  const found: Array<[number, number]> = [
    [0, 4_000_000_000_000],
    [START, START + 3 * 365 * DAY],
    [START + 400 * DAY, START + 400 * DAY + HOUR],
    [START + 400 * DAY + 17 * 60_000, START + 400 * DAY + 31 * 60_000],
    [START + 12_345_678, START + 700 * DAY + 9_876_543],
    [START + 5 * DAY, START + 5 * DAY],
    [0, START],
  ];
  for (let i = 1; i <= 6; i++) {
    const from = START + ((i * 48_271) % 900) * DAY + ((i * 7) % 24) * HOUR + i * 61_000;
    found.push([from, from + ((i * 16_807) % 400) * DAY + i * 3_333_333]);
  }
  return found;
}

async function expectExactTotals(tenantId: string): Promise<void> {
  const index = createDynamoReportingIndex(documentClient(), tables);
  for (const [from, to] of windows()) {
    const page = await index.page({
      tenantId,
      kind: 'assistant',
      window: { from, to },
      limit: 1,
      withTotal: true,
      maxBytes: 1_000_000,
    });
    expect(page.total, `window ${new Date(from).toISOString()} - ${new Date(to).toISOString()}`).toBe(
      await countedRows(tenantId, from, to),
    );
  }
}

/** The counts table's items of a tenant's list, as a map (zeros dropped). */
async function countItems(tenantId: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: tables.counts,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': listKey(tenantId, 'assistant') },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) if (Number(item.rows) !== 0) found.set(String(item.sk), Number(item.rows));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
}

const ids = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

describe('maintained reporting counts', () => {
  it('stay exact through an import, a re-import that moves rows in time, and deletes (absent ids too)', async () => {
    const tenantId = uniqueTenant('counts');
    const store = createReportingRowsStore(documentClient(), tables);
    await store.putRows(tenantId, 'assistant', rowsAt(tenantId, ids('r', 120), 1));
    await expectExactTotals(tenantId);
    // Half the rows again, most at other hours and days; some exactly where they were.
    const again = rowsAt(tenantId, ids('r', 60), 2);
    await store.putRows(tenantId, 'assistant', [...again, ...rowsAt(tenantId, ids('r', 120), 1).slice(100)]);
    await expectExactTotals(tenantId);
    await store.deleteRows(tenantId, 'assistant', [...ids('r', 120).filter((_, i) => i % 3 === 0), 'never-written']);
    await expectExactTotals(tenantId);
    expect(await countedRows(tenantId, 0, 4_000_000_000_000)).toBe(120 - 40);
  });

  it('stay exact under concurrent imports of the same rows at different times', async () => {
    const tenantId = uniqueTenant('counts');
    const store = createReportingRowsStore(documentClient(), tables);
    const shared = ids('c', 80);
    await Promise.all(
      [1, 2, 3, 4].map((seed) =>
        store.putRows(tenantId, 'assistant', rowsAt(tenantId, seed % 2 ? shared : [...shared].reverse(), seed)),
      ),
    );
    expect(await countedRows(tenantId, 0, 4_000_000_000_000)).toBe(80);
    await expectExactTotals(tenantId);
  });

  it('stay exact when an import whose answers were lost after the commit is run again', async () => {
    const tenantId = uniqueTenant('counts');
    const viaProxy = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: proxy.url, region: LOCAL_REGION, credentials: workerDynamo().credentials }),
    );
    const rows = rowsAt(tenantId, ids('l', 60), 3);
    // Every attempt of the SDK loses its answer: the first commits, its retries (same
    // ClientRequestToken) are no-ops, and the import fails, as `cxm import` then says.
    const lost = proxy.inject({
      operation: 'TransactWriteItems',
      bodyContains: tenantId,
      fault: 'InternalServerErrorAfterCommit',
    });
    await expect(createReportingRowsStore(viaProxy, tables).putRows(tenantId, 'assistant', rows)).rejects.toThrow();
    lost.remove();
    expect(await countedRows(tenantId, 0, 4_000_000_000_000)).toBeGreaterThan(0);
    // Run again (`--resume` replays the batch): the committed rows are found as they are, and move nothing.
    await createReportingRowsStore(viaProxy, tables).putRows(tenantId, 'assistant', rows);
    await expectExactTotals(tenantId);
    viaProxy.destroy();
  });

  it('a recount from the rows finds the counts the writes kept', async () => {
    const tenantId = uniqueTenant('counts');
    const store = createReportingRowsStore(documentClient(), tables);
    await store.putRows(tenantId, 'assistant', rowsAt(tenantId, ids('k', 80), 4));
    await store.putRows(tenantId, 'assistant', rowsAt(tenantId, ids('k', 50), 5));
    await store.deleteRows(tenantId, 'assistant', ids('k', 20));
    const kept = await countItems(tenantId);
    const { rows } = await store.rebuildCounts({ tenantId });
    expect(rows).toBe(60);
    expect(await countItems(tenantId)).toEqual(kept);
  });

  it('a data directory from before the counts table gets its rows counted when the local runtime creates the table', async () => {
    const store = workerDynamo();
    const { endpoint } = store;
    const stage = `upgrade${Date.now().toString(36)}`;
    const raw = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: store.credentials });
    const rowsTable = physicalTableName(stage, 'reporting');
    await raw.send(new CreateTableCommand(createTableInput(tableSpecs.reporting, rowsTable)));
    const tenantId = uniqueTenant('counts');
    const rows = rowsAt(tenantId, ids('u', 50), 6);
    // Written as the store wrote rows before counts existed: a plain BatchWrite.
    for (let i = 0; i < rows.length; i += 25) {
      await documentClient().send(
        new BatchWriteCommand({
          RequestItems: {
            [rowsTable]: rows
              .slice(i, i + 25)
              .map((row) => ({ PutRequest: { Item: reportingItem(tenantId, 'assistant', row) } })),
          },
        }),
      );
    }
    const names = await createTables(store, stage);
    const index = createDynamoReportingIndex(documentClient(), { rows: rowsTable, counts: names.reportingCounts! });
    const page = await index.page({
      tenantId,
      kind: 'assistant',
      window: { from: 0, to: 4_000_000_000_000 },
      limit: 1,
      withTotal: true,
      maxBytes: 1_000_000,
    });
    expect(page.total).toBe(50);
    raw.destroy();
  });

  it('cxm reporting recount --tenant counts rows written around the store, for that tenant only', async () => {
    const { endpoint, credentials, tables: all } = workerDynamo();
    const home = mkdtempSync(join(tmpdir(), 'cxm-recount-'));
    writeLocalState(
      {
        apiUrl: 'http://127.0.0.1:9',
        dynamodbEndpoint: endpoint,
        dynamodbCredentials: credentials,
        region: LOCAL_REGION,
        stage: 'test',
        tables: all,
        demo: null,
        pid: process.pid,
      },
      home,
    );
    const tenantId = uniqueTenant('counts');
    const rows = rowsAt(tenantId, ids('w', 30), 7);
    await documentClient().send(
      new BatchWriteCommand({
        RequestItems: {
          [tables.rows]: rows
            .slice(0, 25)
            .map((row) => ({ PutRequest: { Item: reportingItem(tenantId, 'assistant', row) } })),
        },
      }),
    );
    await createReportingRowsStore(documentClient(), tables).putRows(tenantId, 'assistant', rows.slice(25));
    const everything = { from: 0, to: 4_000_000_000_000 };
    const total = async () =>
      (
        await createDynamoReportingIndex(documentClient(), tables).page({
          tenantId,
          kind: 'assistant',
          window: everything,
          limit: 1,
          withTotal: true,
          maxBytes: 1e6,
        })
      ).total;
    expect(await total()).toBe(5);
    const result = await cxm(['reporting', 'recount', '--tenant', tenantId], { CXM_HOME: home });
    expect(result.stdout).toMatch(/^Recounted 30 reporting rows in 1 lists on the local stack/);
    expect(result.code).toBe(0);
    expect(await total()).toBe(30);
    await expectExactTotals(tenantId);
    rmSync(home, { recursive: true, force: true });
  });
});
