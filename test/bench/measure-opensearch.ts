/**
 * `opensearch`: the reporting lists on the local OpenSearch engine (the version the stages run), as
 * their adapter searches it, at sizes the DynamoDB import cannot reach here: the first page (with
 * its total, as a list's first request asks) and the page at 90% depth (resumed from its cursor's
 * key), p50 and p99, for one tenant of 10 000, 100 000 and 1 000 000 rows, then with 1 000 more
 * tenants sharing the indexes. The rows are bulk-loaded into the engine directly, as the indexer
 * writes them (opensearch-bulk.ts, planIndex: the same documents, year indexes and routing), from
 * realistic rows; what the indexer itself keeps up with is measured through the real path: rows
 * written to a reporting table, read from its stream, indexed and searchable. Also the engine's
 * heap and the disk a row takes, which infra/README.md's sizing is built on.
 */

import { BatchWriteItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { createTables, type LocalDynamoConnection, startDynamoDbLocal } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { startStreamReaders } from '#infra/local/emulators/local-streams';
import {
  LOCAL_INDEX_SHARDS,
  type LocalOpenSearch,
  startLocalOpenSearch,
} from '#infra/local/emulators/opensearch/local-opensearch';
import { generateAssistantRows } from '#infra/tenant-data/generate-report-rows';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import type { ReportRow } from '#shared/domain/reporting/report-rows';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { RESPONSE_BUDGET_BYTES } from '#shared/http/list-page';
import { REPORTING_INDEXER } from '#shared/reporting/reporting-indexer';
import { indexOperation } from '#shared/store/opensearch-bulk';
import type { OpenSearchClient } from '#shared/store/opensearch-client';
import { ensureIndexTemplates } from '#shared/store/opensearch-ensure-index-templates';
import { reportingReadAlias } from '#shared/store/opensearch-index-names';
import { indexReportingRecords } from '#shared/store/opensearch-index-rows';
import { createOpenSearchReportingIndex } from '#shared/store/opensearch-reporting-index';
import { reportingItem } from '#shared/store/reporting-rows-store';
import type { TableId } from '#shared/store/table-specs';
import { median, round } from './bench-stats.ts';

const PREFIX = 'cxm-bench-reporting';
const KIND: ReportKind = 'assistant';
const BIG_TENANT = 'bench-big';
const MINUTE = 60_000;
/** Distinct realistic rows, given new ids and times as they are loaded: generating a million costs more than indexing them. */
const TEMPLATE_ROWS = 1000;
const BULK_ROWS = 2000;
const BULK_IN_FLIGHT = 2;
const DEEP_FRACTION = 0.9;

export interface OpenSearchOptions {
  /** The big tenant's sizes, measured as its rows grow to each. */
  sizes: number[];
  /** Tenants added beside it, and the rows of each. */
  tenants: { count: number; rows: number };
  limit: number;
  /** Requests per figure (p50, p99). */
  samples: number;
  /** Rows written to a table and indexed through its stream. */
  indexedRows: number;
  heap: string;
}

export interface Latency {
  p50Ms: number;
  p99Ms: number;
}

export interface OpenSearchScenario {
  /** The measured tenant's rows, and everyone's in the indexes. */
  tenantRows: number;
  indexRows: number;
  tenants: number;
  total: number;
  firstPage: Latency;
  deepPage: number;
  deepPageLatency: Latency;
}

export interface OpenSearchFigures {
  version: string;
  heap: string;
  limit: number;
  samples: number;
  scenarios: OpenSearchScenario[];
  /** Rows a second of the direct bulk load (for reading the section's run time, not the API's). */
  bulkRowsPerSecond: number;
  /** The engine after the loads. */
  heapUsedMb: number;
  heapMaxMb: number;
  diskBytesPerRow: number;
  indexer: {
    rows: number;
    /** Rows a second written to the table (BatchWriteItem, 25 a request). */
    writeRowsPerSecond: number;
    /** Rows a second from the first write to the last row searchable. */
    searchableRowsPerSecond: number;
    /** From the last write to every row searchable. */
    lagMs: number;
  };
}

/** p50 and p99 of the times of `samples` runs of `work`. */
async function latency(samples: number, work: () => Promise<unknown>): Promise<Latency> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    p50Ms: round(median(times), 1),
    p99Ms: round(times[Math.min(times.length - 1, Math.ceil(0.99 * times.length) - 1)]!, 1),
  };
}

/** Row `i` of a tenant: one a minute back from `now`, its id numbered, its content a template's. */
function rowAt(templates: readonly ReportRow[], now: number, i: number): ReportRow {
  return {
    ...templates[i % templates.length]!,
    ID: `r-${String(i).padStart(7, '0')}`,
    Datetime: now - (i + 1) * MINUTE,
  };
}

/** Loads rows `i` of each tenant into the engine, as the indexer's bulk requests would write them. */
async function bulkLoad(
  client: OpenSearchClient,
  rows: Iterable<{ tenantId: string; i: number }>,
  templates: readonly ReportRow[],
  now: number,
): Promise<number> {
  const inFlight = new Set<Promise<unknown>>();
  let lines: string[] = [];
  let count = 0;
  const send = () => {
    const request = client.request({ method: 'POST', path: '/_bulk', ndjson: lines }).then(({ body }) => {
      if ((body as { errors?: boolean }).errors) throw new Error('a bulk load failed');
    });
    lines = [];
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
    return inFlight.size >= BULK_IN_FLIGHT ? Promise.race(inFlight) : undefined;
  };
  for (const { tenantId, i } of rows) {
    const shaped = shapeRow(KIND, tenantId, rowAt(templates, now, i));
    const row = { tenantId, kind: KIND, rowId: shaped.id, datetimeMs: shaped.datetimeMs, row: shaped.row };
    // The text the rows store writes (reportingItem).
    lines.push(...indexOperation({ ...row, rowText: JSON.stringify(shaped.row) }, String(i), 1n, PREFIX).lines);
    count++;
    if (lines.length >= 2 * BULK_ROWS) await send();
  }
  if (lines.length > 0) await send();
  await Promise.all(inFlight);
  return count;
}

/** Rows [from, to) of each tenant. */
function* rowsOf(tenants: readonly string[], from: number, to: number): Generator<{ tenantId: string; i: number }> {
  for (const tenantId of tenants) for (let i = from; i < to; i++) yield { tenantId, i };
}

/** The first page (with its total) and the page at 90% depth of a tenant's `rows` rows, `samples` times each. */
async function scenario(
  engine: LocalOpenSearch,
  options: OpenSearchOptions,
  tenantId: string,
  rows: number,
  now: number,
  indexRows: number,
  tenants: number,
): Promise<OpenSearchScenario> {
  const index = createOpenSearchReportingIndex(engine.client, PREFIX);
  const window = { from: now - (rows + 1) * MINUTE, to: now + 1 };
  const page = (after: [number, string] | undefined, withTotal: boolean) =>
    index.page({
      tenantId,
      kind: KIND,
      window,
      after,
      limit: options.limit,
      withTotal,
      maxBytes: RESPONSE_BUDGET_BYTES,
    });
  const first = await page(undefined, true);
  if (first.rows.length === 0) throw new Error(`${tenantId}: page 1 is empty`);
  if (first.total !== rows) throw new Error(`${tenantId}: the total is ${first.total}, not ${rows}`);
  // Ascending [Datetime, ID] is row `rows - 1` first: the key before the deep page is computed, not walked to.
  const deepPage = Math.max(1, Math.floor(Math.ceil(rows / options.limit) * DEEP_FRACTION));
  const before = rows - 1 - ((deepPage - 1) * options.limit - 1);
  const after: [number, string] | undefined =
    deepPage === 1 ? undefined : [now - (before + 1) * MINUTE, `r-${String(before).padStart(7, '0')}`];
  const deep = await page(after, false);
  if (deep.rows.length === 0) throw new Error(`${tenantId}: page ${deepPage} is empty`);
  return {
    tenantRows: rows,
    indexRows,
    tenants,
    total: first.total,
    firstPage: await latency(options.samples, () => page(undefined, true)),
    deepPage,
    deepPageLatency: await latency(options.samples, () => page(after, false)),
  };
}

/** Rows written to a reporting table of their own, read from its stream by the indexer, until all are searchable. */
async function throughTheIndexer(
  engine: LocalOpenSearch,
  rows: number,
  progress: (message: string) => void,
): Promise<OpenSearchFigures['indexer']> {
  // A DynamoDB Local of its own: the run's is slow by now with the other sections' rows.
  const store = await startDynamoDbLocal({});
  try {
    return await indexThroughStream(engine, store, rows, progress);
  } finally {
    await store.stop();
  }
}

/** Indexing waits at most this long for the rows after the last write: a stalled indexer fails the section. */
const INDEXER_WAIT_MS = 10 * 60_000;

async function indexThroughStream(
  engine: LocalOpenSearch,
  store: LocalDynamoConnection,
  rows: number,
  progress: (message: string) => void,
): Promise<OpenSearchFigures['indexer']> {
  const tables = (await createTables(store, 'bench-search')) as Record<TableId, string>;
  const tenantId = 'bench-indexed';
  const readers = startStreamReaders(
    store,
    LOCAL_REGION,
    [
      {
        name: REPORTING_INDEXER.id,
        sources: [{ tableName: tables.reporting, pattern: {} }],
        batchSize: REPORTING_INDEXER.batchSize,
        retry: { attempts: Number.POSITIVE_INFINITY },
        invoke: (event) => indexReportingRecords(engine.client, PREFIX, event.Records),
      },
    ],
    (line) => progress(`opensearch: ${line}`),
  );
  const dynamo = new DynamoDBClient({
    endpoint: store.endpoint,
    region: LOCAL_REGION,
    credentials: { ...store.credentials },
  });
  const templates = generateAssistantRows({ count: TEMPLATE_ROWS, days: 30, now: Date.now(), seed: 11 });
  const now = Date.now();
  try {
    await readers.ready;
    progress(`opensearch: writing ${rows} rows to a reporting table, indexed from its stream`);
    const started = performance.now();
    const batches: Array<Array<Record<string, unknown>>> = [];
    for (let i = 0; i < rows; i += 25)
      batches.push(
        Array.from({ length: Math.min(25, rows - i) }, (_, k) =>
          reportingItem(tenantId, KIND, shapeRow(KIND, tenantId, rowAt(templates, now, i + k))),
        ),
      );
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < batches.length) {
          const batch = batches[next++]!;
          let unprocessed = { [tables.reporting]: batch.map((item) => ({ PutRequest: { Item: marshall(item) } })) };
          while (Object.keys(unprocessed).length > 0)
            unprocessed = ((await dynamo.send(new BatchWriteItemCommand({ RequestItems: unprocessed })))
              .UnprocessedItems ?? {}) as typeof unprocessed;
        }
      }),
    );
    const written = performance.now();
    for (;;) {
      const { body } = await engine.client.request({
        method: 'POST',
        path: `/${reportingReadAlias(PREFIX, KIND)}/_count`,
        query: { routing: tenantId },
        body: { query: { term: { tenantId } } },
      });
      const count = (body as { count: number }).count;
      if (count >= rows) break;
      if (performance.now() - written > INDEXER_WAIT_MS)
        throw new Error(`the indexer made ${count} of ${rows} rows searchable in ${INDEXER_WAIT_MS / 60_000} min`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const searchable = performance.now();
    return {
      rows,
      writeRowsPerSecond: Math.round(rows / ((written - started) / 1000)),
      searchableRowsPerSecond: Math.round(rows / ((searchable - started) / 1000)),
      lagMs: Math.round(searchable - written),
    };
  } finally {
    await readers.stop();
    dynamo.destroy();
  }
}

export async function measureOpenSearch(
  store: LocalDynamoConnection,
  options: OpenSearchOptions,
  progress: (message: string) => void,
): Promise<OpenSearchFigures> {
  progress(`opensearch: starting the engine (heap ${options.heap})`);
  // The JIT's second tier on: loads and deep searches run at speed, as on a domain.
  const engine = await startLocalOpenSearch({
    credentials: store.credentials,
    region: LOCAL_REGION,
    heap: options.heap,
    quickStart: false,
  });
  try {
    await ensureIndexTemplates(engine.client, PREFIX, LOCAL_INDEX_SHARDS);
    const templates = generateAssistantRows({ count: TEMPLATE_ROWS, days: 30, now: Date.now(), seed: 5 });
    const now = Date.now();
    const scenarios: OpenSearchScenario[] = [];
    let loaded = 0;
    let loadMs = 0;
    const load = async (rows: Iterable<{ tenantId: string; i: number }>) => {
      const started = performance.now();
      loaded += await bulkLoad(engine.client, rows, templates, now);
      loadMs += performance.now() - started;
    };
    const refresh = () => engine.client.request({ method: 'POST', path: `/${PREFIX}-*/_refresh` });
    let rows = 0;
    for (const size of options.sizes) {
      progress(`opensearch: bulk-loading the big tenant from ${rows} to ${size} rows`);
      await load(rowsOf([BIG_TENANT], rows, size));
      await refresh();
      rows = size;
      progress(`opensearch: ${size} rows of one tenant, ${options.samples} requests a figure`);
      scenarios.push(await scenario(engine, options, BIG_TENANT, size, now, loaded, 1));
    }
    const { count, rows: each } = options.tenants;
    progress(`opensearch: bulk-loading ${count} more tenants of ${each} rows`);
    const others = Array.from({ length: count }, (_, t) => `bench-t${String(t).padStart(4, '0')}`);
    await load(rowsOf(others, 0, each));
    await refresh();
    progress(`opensearch: among ${count + 1} tenants, ${options.samples} requests a figure`);
    scenarios.push(await scenario(engine, options, others[Math.floor(count / 2)]!, each, now, loaded, count + 1));
    scenarios.push(await scenario(engine, options, BIG_TENANT, rows, now, loaded, count + 1));

    const { body: jvm } = await engine.client.request({ method: 'GET', path: '/_nodes/_local/stats/jvm' });
    const heap = Object.values(
      (jvm as { nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } } }> })
        .nodes,
    )[0]!.jvm.mem;
    const { body: stats } = await engine.client.request({ method: 'GET', path: `/${PREFIX}-*/_stats/store,docs` });
    const primaries = (stats as { _all: { primaries: { store: { size_in_bytes: number }; docs: { count: number } } } })
      ._all.primaries;
    const indexer = await throughTheIndexer(engine, options.indexedRows, progress);
    return {
      version: engine.version,
      heap: options.heap,
      limit: options.limit,
      samples: options.samples,
      scenarios,
      bulkRowsPerSecond: Math.round(loaded / (loadMs / 1000)),
      heapUsedMb: Math.round(heap.heap_used_in_bytes / 1_048_576),
      heapMaxMb: Math.round(heap.heap_max_in_bytes / 1_048_576),
      diskBytesPerRow: Math.round(primaries.store.size_in_bytes / primaries.docs.count),
      indexer,
    };
  } finally {
    await engine.stop();
  }
}
