/**
 * The reporting indexer: stream records to bulk operations (pure), and the bulk request and its
 * answer through our OpenSearch client with recorded responses. Rows go to the year index of their
 * own Datetime, routed by tenant; a MODIFY that moves a row to another year deletes the old copy
 * in the same request; REMOVE deletes from the old image's year. Failed items are reported
 * exactly; version conflicts and deletes of absent documents are success; external versions grow
 * with the stream order, so a replay can never overwrite a newer row. And the index templates the
 * year indexes are made from.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ASSISTANT_FIELDS, shapeRow, VOC_FIELDS } from '#shared/domain/reporting/report-rows';
import { opensearchIndexShards } from '#shared/settings/opensearch-settings';
import { documentId, externalVersion, failedOperations, planBulk } from '#shared/store/opensearch-bulk';
import { createOpenSearchClient } from '#shared/store/opensearch-client';
import { ensureIndexTemplates } from '#shared/store/opensearch-ensure-index-templates';
import { reportingYearIndex } from '#shared/store/opensearch-index-names';
import { indexReportingRecords } from '#shared/store/opensearch-index-rows';
import { FIELD_TYPES, indexedFields, reportingMappings, rowHash } from '#shared/store/opensearch-mappings';
import { captureJsonLines } from '#test/support/capture-json-lines';
import {
  type ConnectionFailure,
  FAKE_CLUSTER,
  fakeOpenSearch,
  type RecordedResponse,
} from '#test/support/fake-opensearch-transport';
import {
  type BulkOutcome,
  bulkAnswer,
  bulkItem,
  indexNotFound,
  templateAcknowledged,
} from '#test/support/opensearch-recorded-responses';
import { removeRecord, reportingItem, sequenceNumber, writeRecord } from '#test/support/reporting-stream-records';

const PREFIX = 'cxm-test-reporting';
/** 2026-01-01T00:00:00Z: the first instant of 2026. */
const SECOND = 1_767_225_600;
const DATETIME = SECOND * 1000;
const Y2026 = `${PREFIX}-assistant-2026`;
const Y2025 = `${PREFIX}-assistant-2025`;

const assistantRow = (id: string, extra: Record<string, unknown> = {}) =>
  reportingItem(
    't1',
    'assistant',
    shapeRow('assistant', 't1', { ID: id, Datetime: DATETIME, BotName: 'Helper', CSat: 4, Escalated: false, ...extra }),
  );
/** The same row one millisecond earlier: the last instant of 2025. */
const movedTo2025 = (id: string) => assistantRow(id, { Datetime: DATETIME - 1 });
const vocRow = (id: string) =>
  reportingItem(
    't1',
    'voc',
    shapeRow('voc', 't1', {
      ID: id,
      Datetime: '2026-01-01T09:00:00+01:00',
      Problems: [{ name: 'hold', severity: 'low' }],
      KPIs: [{ name: 'FCR', value: true }],
    }),
  );

const at = (n: number, seconds = SECOND) => ({ sequenceNumber: sequenceNumber(n), seconds });

function indexer(...answers: Array<RecordedResponse | ConnectionFailure>) {
  const fake = fakeOpenSearch(...answers);
  const client = createOpenSearchClient({ ...FAKE_CLUSTER, transport: fake.transport, maxRetries: 0 });
  const warnings: Array<Record<string, unknown>> = [];
  const errors: Array<Record<string, unknown>> = [];
  const run = (records: DynamoDBRecord[]) =>
    indexReportingRecords(client, PREFIX, records, {
      warn: (_message, extra) => warnings.push(extra),
      error: (_message, extra) => errors.push(extra),
    });
  return { run, requests: fake.requests, warnings, errors };
}

/** The answer the cluster gives to `records`, item by item. */
function answerFor(records: DynamoDBRecord[], outcomes: BulkOutcome[]): RecordedResponse {
  const { operations } = planBulk(records, PREFIX);
  return bulkAnswer(operations.map((op, i) => bulkItem(op.action, op.index, op.id, op.version, outcomes[i]!)));
}

describe('stream records to bulk operations', () => {
  it('INSERT/MODIFY index the row into its year, routed by tenant, under its row key with an external version; REMOVE deletes', () => {
    const row = assistantRow('a-1');
    const gone = vocRow('v-9');
    const records = [writeRecord(row, at(1)), removeRecord(gone, at(2, SECOND + 1))];
    const { operations, rejected } = planBulk(records, PREFIX);
    expect(rejected).toEqual([]);
    expect(operations.map(({ lines }) => lines)).toEqual([
      [
        `{"index":{"_index":"${Y2026}","_id":"t1#assistant#a-1","routing":"t1","version":${SECOND}000000001,"version_type":"external"}}`,
        JSON.stringify({
          tenantId: 't1',
          rowId: 'a-1',
          datetimeMs: DATETIME,
          row: row.row,
          rowHash: rowHash(row.row),
          ...indexedFields('assistant', JSON.parse(row.row) as Record<string, unknown>),
        }),
      ],
      // The VOC row's Datetime, 2026-01-01T09:00+01:00, is 08:00 UTC: 2026.
      [
        `{"delete":{"_index":"${PREFIX}-voc-2026","_id":"t1#voc#v-9","routing":"t1","version":${SECOND + 1}000000002,"version_type":"external"}}`,
      ],
    ]);
  });

  it("the UTC year of the row's own Datetime picks the index; Datetimes outside 2000-2099 share one", () => {
    const year = (ms: number) => reportingYearIndex(PREFIX, 'voc', ms);
    expect(year(DATETIME)).toBe(`${PREFIX}-voc-2026`);
    expect(year(DATETIME - 1)).toBe(`${PREFIX}-voc-2025`);
    expect(year(Date.UTC(2000, 0, 1))).toBe(`${PREFIX}-voc-2000`);
    expect(year(Date.UTC(2099, 11, 31, 23, 59, 59, 999))).toBe(`${PREFIX}-voc-2099`);
    for (const outlying of [0, Date.UTC(2000, 0, 1) - 1, Date.UTC(2100, 0, 1), 999_999_999_999_999])
      expect(year(outlying)).toBe(`${PREFIX}-voc-other`);
    // A VOC Datetime in the tenant's zone counts in UTC: 00:30 at +01:00 on New Year is still 2025.
    const early = reportingItem(
      't1',
      'voc',
      shapeRow('voc', 't1', { ID: 'v-1', Datetime: '2026-01-01T00:30:00+01:00' }),
    );
    expect(planBulk([writeRecord(early, at(1))], PREFIX).operations[0]!.index).toBe(`${PREFIX}-voc-2025`);
  });

  it('a MODIFY that moves the row to another year indexes it there and deletes the old copy, same id, routing and version', () => {
    const before = assistantRow('a-1');
    const record = writeRecord(movedTo2025('a-1'), at(7), 'MODIFY', before);
    const { operations, rejected } = planBulk([record], PREFIX);
    expect(rejected).toEqual([]);
    expect(
      operations.map(({ action, index, id, routing, version, sequenceNumber: seq }) => ({
        action,
        index,
        id,
        routing,
        version,
        seq,
      })),
    ).toEqual([
      {
        action: 'index',
        index: Y2025,
        id: 't1#assistant#a-1',
        routing: 't1',
        version: BigInt(`${SECOND}000000007`),
        seq: sequenceNumber(7),
      },
      {
        action: 'delete',
        index: Y2026,
        id: 't1#assistant#a-1',
        routing: 't1',
        version: BigInt(`${SECOND}000000007`),
        seq: sequenceNumber(7),
      },
    ]);
    expect(operations[1]!.lines).toEqual([
      `{"delete":{"_index":"${Y2026}","_id":"t1#assistant#a-1","routing":"t1","version":${SECOND}000000007,"version_type":"external"}}`,
    ]);
  });

  it('a MODIFY within the year, and one without an old image (a NEW_IMAGE stream), only index', () => {
    const sameYear = writeRecord(
      assistantRow('a-1', { Datetime: DATETIME + 86_400_000 }),
      at(1),
      'MODIFY',
      assistantRow('a-1'),
    );
    const noOldImage = writeRecord(movedTo2025('a-2'), at(2), 'MODIFY');
    const notARow = writeRecord(movedTo2025('a-3'), at(3), 'MODIFY', { pk: { S: 't1#assistant#a-3' } });
    const { operations } = planBulk([sameYear, noOldImage, notARow], PREFIX);
    expect(operations.map((op) => [op.action, op.index])).toEqual([
      ['index', Y2026],
      ['index', Y2025],
      ['index', Y2025],
    ]);
  });

  it('a REMOVE deletes from the year of its old image; without one (a NEW_IMAGE stream) it is rejected, naming the stream view', () => {
    const { operations, rejected } = planBulk(
      [removeRecord(movedTo2025('a-1'), at(1)), removeRecord('t1#assistant#a-2', at(2))],
      PREFIX,
    );
    expect(operations.map((op) => [op.action, op.index, op.routing])).toEqual([['delete', Y2025, 't1']]);
    expect(rejected).toEqual([
      { sequenceNumber: sequenceNumber(2), reason: expect.stringContaining('NEW_AND_OLD_IMAGES') },
    ]);
  });

  it('the document keeps the stored row text exactly and the typed spec fields beside it', () => {
    const row = vocRow('v-1');
    const [operation] = planBulk([writeRecord(row, at(1))], PREFIX).operations;
    const document = JSON.parse(operation!.lines[1]!) as Record<string, unknown>;
    expect(document.row).toBe(row.row);
    expect(document).toMatchObject({
      tenantId: 't1',
      rowId: 'v-1',
      datetimeMs: Date.parse('2026-01-01T08:00:00Z'),
      ID: 'v-1',
      Datetime: '2026-01-01T09:00:00+01:00',
      DatetimeUTC: '2026-01-01T08:00:00.000Z',
      Problems: [{ name: 'hold', severity: 'low' }],
      // Only the names of KPIs are indexed: their values change type from KPI to KPI.
      KPIs: [{ name: 'FCR' }],
    });
    expect(document).not.toHaveProperty('CSat');
  });

  it('external versions grow with the stream order: within a second by sequence number, across seconds by time', () => {
    const item = assistantRow('a-1');
    const records = [
      writeRecord(item, at(41)),
      writeRecord(item, at(42), 'MODIFY'),
      // The next second, with a sequence number whose tail happens to be smaller.
      writeRecord(item, { sequenceNumber: sequenceNumber(7, '4421584600000'), seconds: SECOND + 1 }, 'MODIFY'),
      removeRecord(item, at(43, SECOND + 2)),
    ];
    const versions = planBulk(records, PREFIX).operations.map((op) => op.version);
    expect(versions).toHaveLength(4);
    for (let i = 1; i < versions.length; i++) expect(versions[i]! > versions[i - 1]!).toBe(true);
    // Past 2^53, which is why the action lines are written by hand.
    expect(versions[0]! > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  it('a replayed record carries the same version as the first time (OpenSearch answers 409, not an overwrite)', () => {
    const record = writeRecord(assistantRow('a-1'), at(5));
    expect(externalVersion(record)).toBe(externalVersion(structuredClone(record)));
    expect(externalVersion(record)).toBe(BigInt(`${SECOND}000000005`));
  });

  it('records that are not reporting rows are rejected, not sent', () => {
    const good = writeRecord(assistantRow('a-1'), at(1));
    const notJson = writeRecord({ ...assistantRow('a-2'), row: '{oops' }, at(2));
    const wrongKey = writeRecord({ ...assistantRow('a-3'), pk: 'other#assistant#a-3' }, at(3));
    const noImage: DynamoDBRecord = {
      ...good,
      dynamodb: { ...good.dynamodb, NewImage: undefined, SequenceNumber: sequenceNumber(4) },
    };
    const badRemove = removeRecord('t1#notes#x', at(5));
    const noTime: DynamoDBRecord = {
      ...good,
      dynamodb: { ...good.dynamodb, ApproximateCreationDateTime: undefined, SequenceNumber: sequenceNumber(6) },
    };
    const { operations, rejected } = planBulk([good, notJson, wrongKey, noImage, badRemove, noTime], PREFIX);
    expect(operations.map((op) => op.sequenceNumber)).toEqual([sequenceNumber(1)]);
    expect(rejected.map((r) => r.sequenceNumber)).toEqual([2, 3, 4, 5, 6].map((n) => sequenceNumber(n)));
  });

  it('a record without a sequence number is not a stream record at all', () => {
    const record = writeRecord(assistantRow('a-1'), at(1));
    expect(() =>
      planBulk([{ ...record, dynamodb: { ...record.dynamodb, SequenceNumber: undefined } }], PREFIX),
    ).toThrow(/SequenceNumber/);
  });

  it('a row key too long for a document id is replaced by its digest', () => {
    expect(documentId('t1#assistant#short')).toBe('t1#assistant#short');
    const long = `t1#assistant#${'x'.repeat(600)}`;
    expect(documentId(long)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(documentId(long)).toBe(documentId(long));
  });

  it('which bulk items count as applied', () => {
    const records = [1, 2, 3, 4, 5].map((n) => writeRecord(assistantRow(`a-${n}`), at(n)));
    const { operations } = planBulk(
      [...records, removeRecord(assistantRow('gone'), at(6)), removeRecord(assistantRow('a-1'), at(7))],
      PREFIX,
    );
    const outcomes: BulkOutcome[] = ['created', 'updated', 'conflict', 'rejected', 'mapping', 'not_found', 'deleted'];
    const items = operations.map((op, i) => bulkItem(op.action, op.index, op.id, op.version, outcomes[i]!));
    expect(failedOperations(operations, items).map((f) => [f.operation.sequenceNumber, f.status])).toEqual([
      [sequenceNumber(4), 429],
      [sequenceNumber(5), 400],
    ]);
    // An answer with fewer items than operations leaves the rest failed.
    expect(failedOperations(operations, items.slice(0, 6)).map((f) => f.operation.sequenceNumber)).toContain(
      sequenceNumber(7),
    );
  });
});

describe('a batch through the client', () => {
  it('sends one bulk request and reports exactly the item that failed', async () => {
    const records = [
      writeRecord(assistantRow('a-1'), at(1)),
      writeRecord(assistantRow('a-2'), at(2)),
      writeRecord(vocRow('v-1'), at(3)),
      removeRecord(assistantRow('a-0'), at(4)),
    ];
    const { run, requests, warnings } = indexer(answerFor(records, ['created', 'rejected', 'created', 'deleted']));
    expect(await run(records)).toEqual({ batchItemFailures: [{ itemIdentifier: sequenceNumber(2) }], notIndexed: 0 });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/_bulk' });
    expect(requests[0]!.headers['content-type']).toBe('application/x-ndjson');
    expect(requests[0]!.body.split('\n')).toHaveLength(3 * 2 + 1 + 1);
    expect(warnings).toEqual([expect.objectContaining({ sequenceNumber: sequenceNumber(2), status: 429 })]);
  });

  it('a move to another year: the index and the delete of the old copy travel in one request; either failing fails the record', async () => {
    const move = writeRecord(movedTo2025('a-1'), at(1), 'MODIFY', assistantRow('a-1'));
    const next = writeRecord(assistantRow('a-2'), at(2));
    const { run, requests } = indexer(
      answerFor([move, next], ['updated', 'rejected', 'created']),
      answerFor([move, next], ['created', 'not_found', 'created']),
    );
    expect(await run([move, next])).toEqual({
      batchItemFailures: [{ itemIdentifier: sequenceNumber(1) }],
      notIndexed: 0,
    });
    expect(requests).toHaveLength(1);
    const actions = (requests[0]!.json as Array<Record<string, { _index?: string; routing?: string }>>).filter(
      (line) => 'index' in line || 'delete' in line,
    );
    expect(
      actions.map((line) => Object.entries(line).map(([action, meta]) => [action, meta._index, meta.routing])[0]),
    ).toEqual([
      ['index', Y2025, 't1'],
      ['delete', Y2026, 't1'],
      ['index', Y2026, 't1'],
    ]);
    // Retried, the old copy already gone (404) is success like the rest.
    expect(await run([move, next])).toEqual({ batchItemFailures: [], notIndexed: 0 });
  });

  it('version conflicts (a replay, or a newer change indexed first) and deletes of absent rows are success', async () => {
    const item = assistantRow('a-1');
    const newer = writeRecord(item, at(9), 'MODIFY');
    const replayedOlder = writeRecord(item, at(8), 'MODIFY');
    const remove = removeRecord(assistantRow('never-indexed'), at(10));
    const records = [replayedOlder, newer, remove];
    const { run, requests } = indexer(answerFor(records, ['conflict', 'conflict', 'not_found']));
    expect(await run(records)).toEqual({ batchItemFailures: [], notIndexed: 0 });
    // The older record went out with the lower version: OpenSearch keeps the newer document.
    const versions = requests[0]!.body
      .split('\n')
      .filter((line) => line.includes('"version_type"'))
      .map((line) => BigInt(/"version":(\d+)/.exec(line)![1]!));
    expect(versions[0]! < versions[1]!).toBe(true);
  });

  it('gives up on what can never be indexed, logged and counted, not retried: a record that is no reporting row, an item the engine refuses as it is', async () => {
    const good = writeRecord(assistantRow('a-1'), at(1));
    const bad = writeRecord({ ...assistantRow('a-2'), row: 'not json' }, at(2));
    const refused = writeRecord(assistantRow('a-3'), at(3));
    const throttled = writeRecord(assistantRow('a-4'), at(4));
    const { run, requests, errors } = indexer(
      answerFor([good, refused, throttled], ['created', 'mapping', 'rejected']),
    );
    // Only the throttled one is retried: retrying the others would hold back every later record of the shard.
    expect(await run([good, bad, refused, throttled])).toEqual({
      batchItemFailures: [{ itemIdentifier: sequenceNumber(4) }],
      notIndexed: 2,
    });
    expect(requests[0]!.body.split('\n').filter(Boolean)).toHaveLength(6);
    expect(errors).toEqual([
      expect.objectContaining({ sequenceNumber: sequenceNumber(2), reason: expect.stringMatching(/not JSON/) }),
      expect.objectContaining({ sequenceNumber: sequenceNumber(3), status: 400 }),
    ]);
  });

  it('sends nothing when nothing is indexable', async () => {
    const { run, requests } = indexer();
    expect(await run([writeRecord({ ...assistantRow('a-2'), row: 'not json' }, at(2))])).toEqual({
      batchItemFailures: [],
      notIndexed: 1,
    });
    expect(requests).toHaveLength(0);
  });

  it('splits large batches into several requests', async () => {
    const big = (n: number) => writeRecord(assistantRow(`a-${n}`, { Input: 'x'.repeat(2 * 1024 * 1024) }), at(n));
    const records = [big(1), big(2), big(3)];
    const { operations } = planBulk(records, PREFIX);
    const answer = (i: number, outcome: BulkOutcome) =>
      bulkAnswer([bulkItem('index', operations[i]!.index, operations[i]!.id, operations[i]!.version, outcome)]);
    // Each document is about 4 MB (the row text and the indexed Input): one a request.
    const { run, requests } = indexer(answer(0, 'created'), answer(1, 'created'), answer(2, 'rejected'));
    expect(await run(records)).toEqual({ batchItemFailures: [{ itemIdentifier: sequenceNumber(3) }], notIndexed: 0 });
    expect(requests).toHaveLength(3);
  });

  it('throws when the cluster does not answer, so Lambda retries (and bisects) the batch', async () => {
    const records = [writeRecord(assistantRow('a-1'), at(1))];
    await expect(indexer({ fail: 'connect ECONNREFUSED' }).run(records)).rejects.toThrow(/ECONNREFUSED/);
    await expect(indexer({ statusCode: 503, body: { message: 'unavailable' } }).run(records)).rejects.toThrow();
  });
});

describe('indexes and mappings', () => {
  it('every spec field has an explicit type', () => {
    expect(Object.keys(FIELD_TYPES.assistant).sort()).toEqual([...ASSISTANT_FIELDS].sort());
    expect(Object.keys(FIELD_TYPES.voc).sort()).toEqual([...VOC_FIELDS].sort());
  });

  it('maps the spec fields by type, and our own fields for filter, window, order and reads', () => {
    const assistant = reportingMappings('assistant');
    expect(assistant.dynamic).toBe(false);
    expect(assistant.properties).toMatchObject({
      tenantId: { type: 'keyword' },
      rowId: { type: 'keyword' },
      datetimeMs: { type: 'long' },
      row: { type: 'text', index: false },
      ID: { type: 'keyword' },
      Datetime: { type: 'date', format: 'epoch_millis' },
      DatetimeUTC: { type: 'date' },
      Duration: { type: 'float' },
      CSat: { type: 'float' },
      Escalated: { type: 'boolean' },
      Summary: { type: 'text', fields: { keyword: { type: 'keyword' } } },
      'Handoff Reason': { type: 'text' },
    });
    expect(reportingMappings('voc').properties).toMatchObject({
      Datetime: { type: 'date', format: 'strict_date_optional_time' },
      Sentiment: { type: 'float' },
      Problems: { type: 'nested' },
      KPIs: { type: 'nested' },
    });
  });

  it('leaves out values the mapping cannot take (they stay in the row)', () => {
    expect(
      indexedFields('assistant', {
        ID: 'a',
        CSat: 'high',
        Escalated: 'yes',
        Datetime: 5,
        Summary: 7,
        Input: null,
        BotID: 42,
      }),
    ).toEqual({
      ID: 'a',
      Datetime: 5,
      BotID: 42,
    });
    expect(
      indexedFields('voc', { Problems: 'hold', KPIs: [{ name: 'x', value: 1 }, 'odd', { name: { deep: true } }] }),
    ).toEqual({ KPIs: [{ name: 'x' }, {}] });
  });

  it('routing is required: a write or delete without it fails instead of landing on another shard', () => {
    expect(reportingMappings('assistant')._routing).toEqual({ required: true });
    expect(reportingMappings('voc')._routing).toEqual({ required: true });
  });

  it('ensureIndexTemplates puts one composable template per kind: the year indexes, their shards, mappings and read alias', async () => {
    const noIndexYet = [indexNotFound(`${PREFIX}-assistant-read`), indexNotFound(`${PREFIX}-voc-read`)];
    const fake = fakeOpenSearch(templateAcknowledged, templateAcknowledged, ...noIndexYet);
    expect(
      await ensureIndexTemplates(createOpenSearchClient({ ...FAKE_CLUSTER, transport: fake.transport }), PREFIX, {
        primaries: 3,
        replicas: 1,
      }),
    ).toEqual([]);
    expect(fake.requests.map((r) => [r.method, r.path]).sort()).toEqual([
      ['POST', `/_index_template/${PREFIX}-assistant`],
      ['POST', `/_index_template/${PREFIX}-voc`],
      ['PUT', `/${PREFIX}-assistant-read/_mapping`],
      ['PUT', `/${PREFIX}-voc-read/_mapping`],
    ]);
    // Both templates before any mapping: no index is made from an older one meanwhile.
    expect(fake.requests.slice(0, 2).every((r) => r.method === 'POST')).toBe(true);
    for (const kind of ['assistant', 'voc'] as const) {
      const request = fake.requests.find((r) => r.path.endsWith(`-${kind}`))!;
      // Replaced at every cold start (no ?create=true), so a deploy's mappings and shards reach the next year.
      expect(request.querystring).toBe('');
      expect(request.json).toEqual({
        index_patterns: [`${PREFIX}-${kind}-*`],
        priority: 200,
        template: {
          settings: {
            'index.mapping.ignore_malformed': true,
            'index.number_of_shards': 3,
            'index.number_of_replicas': 1,
          },
          mappings: reportingMappings(kind),
          aliases: { [`${PREFIX}-${kind}-read`]: {} },
        },
        _meta: { description: expect.stringContaining('one index per UTC year') },
      });
      expect(fake.requests.find((r) => r.path === `/${PREFIX}-${kind}-read/_mapping`)!.json).toEqual(
        reportingMappings(kind),
      );
    }
  });

  it('ensureIndexTemplates gives the year indexes that exist the mappings; a change they refuse is answered, not thrown', async () => {
    const conflict = {
      statusCode: 400,
      body: {
        error: {
          type: 'illegal_argument_exception',
          reason: 'mapper [CSat] cannot be changed from type [float] to [keyword]',
        },
        status: 400,
      },
    };
    const fake = fakeOpenSearch(templateAcknowledged, templateAcknowledged, conflict, conflict);
    const refused = await ensureIndexTemplates(
      createOpenSearchClient({ ...FAKE_CLUSTER, transport: fake.transport }),
      PREFIX,
      {
        primaries: 1,
        replicas: 1,
      },
    );
    expect(refused.map(({ kind }) => kind).sort()).toEqual(['assistant', 'voc']);
    expect(refused[0]!.reason).toEqual(conflict.body);
    const accepted = fakeOpenSearch(
      templateAcknowledged,
      templateAcknowledged,
      templateAcknowledged,
      templateAcknowledged,
    );
    expect(
      await ensureIndexTemplates(createOpenSearchClient({ ...FAKE_CLUSTER, transport: accepted.transport }), PREFIX, {
        primaries: 1,
        replicas: 1,
      }),
    ).toEqual([]);
  });

  it('ensureIndexTemplates fails on any error', async () => {
    const fake = fakeOpenSearch(templateAcknowledged, { statusCode: 403, body: { Message: 'not authorized' } });
    await expect(
      ensureIndexTemplates(createOpenSearchClient({ ...FAKE_CLUSTER, transport: fake.transport }), PREFIX, {
        primaries: 1,
        replicas: 1,
      }),
    ).rejects.toThrow();
  });

  it("the shard counts come from the indexer's environment, with OpenSearch's defaults (1 and 1) when unset", () => {
    expect(opensearchIndexShards({})).toEqual({ primaries: 1, replicas: 1 });
    expect(opensearchIndexShards({ CXM_OPENSEARCH_PRIMARY_SHARDS: '4', CXM_OPENSEARCH_REPLICAS: '0' })).toEqual({
      primaries: 4,
      replicas: 0,
    });
    expect(() => opensearchIndexShards({ CXM_OPENSEARCH_PRIMARY_SHARDS: '0' })).toThrow(
      /CXM_OPENSEARCH_PRIMARY_SHARDS/,
    );
    expect(() => opensearchIndexShards({ CXM_OPENSEARCH_REPLICAS: 'one' })).toThrow(/CXM_OPENSEARCH_REPLICAS/);
  });
});

describe('the Lambda handler', () => {
  beforeEach(() => {
    vi.resetModules();
    vi.stubEnv('CXM_OPENSEARCH_ENDPOINT', FAKE_CLUSTER.endpoint);
    vi.stubEnv('CXM_OPENSEARCH_INDEX_PREFIX', PREFIX);
    // What the function role's credentials are in Lambda: the client signs with them.
    vi.stubEnv('AWS_REGION', FAKE_CLUSTER.region);
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDFAKEROLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'fake-role-secret');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.doUnmock('#shared/store/opensearch-client');
  });

  it('puts the index templates once per container, before any write, then indexes each batch', async () => {
    vi.stubEnv('CXM_OPENSEARCH_PRIMARY_SHARDS', '2');
    vi.stubEnv('CXM_OPENSEARCH_REPLICAS', '1');
    const first = [writeRecord(assistantRow('a-1'), at(1)), writeRecord(assistantRow('a-2'), at(2))];
    const second = [removeRecord(assistantRow('a-1'), at(3))];
    const fake = fakeOpenSearch(
      templateAcknowledged,
      templateAcknowledged,
      indexNotFound(`${PREFIX}-assistant-read`),
      indexNotFound(`${PREFIX}-voc-read`),
      answerFor(first, ['created', 'mapping']),
      answerFor(second, ['deleted']),
    );
    vi.doMock('#shared/store/opensearch-client', async (importOriginal) => {
      const original = await importOriginal<typeof import('#shared/store/opensearch-client')>();
      return {
        ...original,
        createOpenSearchClient: (options: Parameters<typeof original.createOpenSearchClient>[0]) =>
          original.createOpenSearchClient({ ...options, transport: fake.transport }),
      };
    });
    // The metric the alarm reads and the log line naming the row are the subject too.
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'ERROR');
    const output = captureJsonLines();
    const { handler } = await import('#functions/indexer/index-reporting-rows');
    try {
      // The refused document is given up on, not retried, and counted.
      expect(await handler({ Records: first })).toEqual({ batchItemFailures: [] });
      expect(await handler({ Records: second })).toEqual({ batchItemFailures: [] });
    } finally {
      output.restore();
    }
    expect(output.lines.filter((line) => 'ReportingRowNotIndexed' in line)).toEqual([
      expect.objectContaining({ ReportingRowNotIndexed: 1 }),
    ]);
    expect(output.lines).toContainEqual(
      expect.objectContaining({ level: 'ERROR', message: 'bulk operation refused: not retried', status: 400 }),
    );
    const sent = fake.requests.map((r) => `${r.method} ${r.path}`);
    // The two templates are put at once, in either order, then their mappings; all before any write.
    expect([...sent.slice(0, 4)].sort()).toEqual([
      `POST /_index_template/${PREFIX}-assistant`,
      `POST /_index_template/${PREFIX}-voc`,
      `PUT /${PREFIX}-assistant-read/_mapping`,
      `PUT /${PREFIX}-voc-read/_mapping`,
    ]);
    expect(sent.slice(4)).toEqual(['POST /_bulk', 'POST /_bulk']);
    expect(fake.requests[0]!.json).toMatchObject({
      template: { settings: { 'index.number_of_shards': 2, 'index.number_of_replicas': 1 } },
    });
  });

  it('a failed template put fails the batch (no write without the template) and is tried again by the next one', async () => {
    const records = [writeRecord(assistantRow('a-1'), at(1))];
    const fake = fakeOpenSearch(
      { statusCode: 403, body: { Message: 'not authorized' } },
      templateAcknowledged,
      templateAcknowledged,
      templateAcknowledged,
      indexNotFound(`${PREFIX}-assistant-read`),
      indexNotFound(`${PREFIX}-voc-read`),
      answerFor(records, ['created']),
    );
    vi.doMock('#shared/store/opensearch-client', async (importOriginal) => {
      const original = await importOriginal<typeof import('#shared/store/opensearch-client')>();
      return {
        ...original,
        createOpenSearchClient: (options: Parameters<typeof original.createOpenSearchClient>[0]) =>
          original.createOpenSearchClient({ ...options, transport: fake.transport, maxRetries: 0 }),
      };
    });
    const { handler } = await import('#functions/indexer/index-reporting-rows');
    await expect(handler({ Records: records })).rejects.toThrow();
    expect(fake.requests.some((r) => r.path === '/_bulk')).toBe(false);
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(fake.requests.map((r) => r.path).filter((path) => path.startsWith('/_index_template/'))).toHaveLength(4);
  });

  it('fails at cold start without its settings', async () => {
    vi.stubEnv('CXM_OPENSEARCH_ENDPOINT', undefined);
    await expect(import('#functions/indexer/index-reporting-rows')).rejects.toThrow(/CXM_OPENSEARCH_ENDPOINT/);
  });
});
