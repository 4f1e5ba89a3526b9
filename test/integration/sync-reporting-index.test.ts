/**
 * The backfill `npm start` runs when it serves the lists from the engine (sync-reporting-index.ts):
 * every row of the table is indexed, a document whose row the table no longer holds (deleted while
 * the stack was stopped) is removed, and one the stream wrote after the backfill began is kept,
 * whatever the table showed the scan. On a reporting table of its own and the run's engine, under
 * an index prefix of this file's own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { syncReportingIndex } from '#infra/local/emulators/opensearch/sync-reporting-index';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { documentClient } from '#shared/store/dynamo-client';
import { ensureIndexTemplates } from '#shared/store/opensearch-ensure-index-templates';
import { reportingReadAlias, reportingTemplateName } from '#shared/store/opensearch-index-names';
import { indexReportingRecords } from '#shared/store/opensearch-index-rows';
import { createReportingRowsStore } from '#shared/store/reporting-rows-store';
import { reportingItem, sequenceNumber, writeRecord } from '#test/support/reporting-stream-records';
import { runOpenSearch } from '#test/support/run-opensearch';
import { tablesOfItsOwn, workerDynamo } from '#test/support/worker-dynamo';

const { client } = runOpenSearch();
const prefix = `cxm-sync-${randomUUID().slice(0, 8)}`;
const tenant = 't1';
const SHARDS = { primaries: 1, replicas: 0 };
const now = Date.now();
const row = (id: string, minutesAgo: number) =>
  shapeRow('assistant', tenant, { ID: id, Datetime: now - minutesAgo * 60_000 });
let table: string;
let sequence = 0n;
let startedAtMs: number;

beforeAll(async () => {
  const tables = await tablesOfItsOwn('sync');
  pointAtLocalDynamo(workerDynamo(), tables);
  table = tables.reporting;
  // As the indexer's cold start does, before any document is written.
  await ensureIndexTemplates(client, prefix, SHARDS);
  await createReportingRowsStore(documentClient(), { rows: tables.reporting, counts: tables.reportingCounts }).putRows(
    tenant,
    'assistant',
    [row('kept-1', 1), row('kept-2', 2), row('kept-3', 3)],
  );
});

afterAll(async () => {
  const { body } = await client.request({ method: 'GET', path: `/${prefix}-*` });
  const names = Object.keys(body as Record<string, unknown>);
  if (names.length > 0) await client.request({ method: 'DELETE', path: `/${names.join(',')}` });
  for (const kind of ['assistant', 'voc'] as const)
    await client
      .request({ method: 'DELETE', path: `/_index_template/${reportingTemplateName(prefix, kind)}` })
      .catch(() => undefined);
});

/** Indexes rows as the stream's indexer would, with records of `seconds`. */
async function indexFromStream(ids: string[], seconds: number) {
  const records = ids.map((id) =>
    writeRecord(reportingItem(tenant, 'assistant', row(id, 5)), {
      sequenceNumber: sequenceNumber(++sequence),
      seconds,
    }),
  );
  expect(await indexReportingRecords(client, prefix, records)).toEqual({ batchItemFailures: [], notIndexed: 0 });
}

async function listedIds(): Promise<string[]> {
  await client.request({ method: 'POST', path: `/${prefix}-*/_refresh` });
  const { body } = await client.request({
    method: 'POST',
    path: `/${reportingReadAlias(prefix, 'assistant')}/_search`,
    query: { routing: tenant },
    body: { size: 100, _source: false, docvalue_fields: ['rowId'], query: { term: { tenantId: tenant } } },
  });
  const hits = (body as { hits: { hits: Array<{ fields: { rowId: string[] } }> } }).hits.hits;
  return hits.map((hit) => hit.fields.rowId[0]!).sort();
}

const sync = (startedAtMs: number) =>
  syncReportingIndex({
    client,
    prefix,
    shards: SHARDS,
    store: workerDynamo(),
    region: LOCAL_REGION,
    table,
    startedAtMs,
  });

describe('the backfill at start', () => {
  it("indexes the table's rows, removes what it no longer holds and keeps what the stream wrote since", async () => {
    startedAtMs = Date.now();
    const seconds = Math.floor(startedAtMs / 1000);
    // Indexed before a stop, its row deleted meanwhile.
    await indexFromStream(['deleted-while-stopped'], seconds - 3600);
    // Written after the stream readers took their place: the scan did not see it.
    await indexFromStream(['written-since'], seconds + 1);
    expect(await sync(startedAtMs)).toEqual({ rows: 3, removed: 1, failed: [], mappingsRefused: [] });
    expect(await listedIds()).toEqual(['kept-1', 'kept-2', 'kept-3', 'written-since']);
  });

  it('at a later start, removes a row the stream wrote and the table no longer holds', async () => {
    expect(await sync(startedAtMs + 10_000)).toEqual({ rows: 3, removed: 1, failed: [], mappingsRefused: [] });
    expect(await listedIds()).toEqual(['kept-1', 'kept-2', 'kept-3']);
  });
});
