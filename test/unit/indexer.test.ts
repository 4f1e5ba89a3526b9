/**
 * The reporting indexer: stream records to bulk operations (pure), and the bulk request and its
 * answer through the official client with recorded responses. Failed items are reported exactly;
 * version conflicts and deletes of absent documents are success; REMOVE deletes; external versions
 * grow with the stream order, so a replay can never overwrite a newer row.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { shapeRow, ASSISTANT_FIELDS, VOC_FIELDS } from '#shared/domain/reporting/report-rows';
import { documentId, externalVersion, failedOperations, planBulk } from '#shared/store/opensearch-bulk';
import { createOpenSearchClient } from '#shared/store/opensearch-client';
import { ensureIndexes } from '#shared/store/opensearch-ensure-indexes';
import { indexReportingRecords } from '#shared/store/opensearch-index-rows';
import { FIELD_TYPES, indexedFields, reportingMappings } from '#shared/store/opensearch-mappings';
import { fakeOpenSearch, type ConnectionFailure, type RecordedResponse } from '#test/support/fake-opensearch-connection';
import { bulkAnswer, bulkItem, indexAlreadyExists, indexCreated, type BulkOutcome } from '#test/support/opensearch-recorded-responses';
import { removeRecord, reportingItem, sequenceNumber, writeRecord } from '#test/support/reporting-stream-records';

const PREFIX = 'cxm-test-reporting';
const SECOND = 1_767_225_600;
const DATETIME = SECOND * 1000;

const assistantRow = (id: string, extra: Record<string, unknown> = {}) =>
  reportingItem('t1', 'assistant', shapeRow('assistant', 't1', { ID: id, Datetime: DATETIME, BotName: 'Helper', CSat: 4, Escalated: false, ...extra }));
const vocRow = (id: string) =>
  reportingItem('t1', 'voc', shapeRow('voc', 't1', { ID: id, Datetime: '2026-01-01T09:00:00+01:00', Problems: [{ name: 'hold', severity: 'low' }], KPIs: [{ name: 'FCR', value: true }] }));

const at = (n: number, seconds = SECOND) => ({ sequenceNumber: sequenceNumber(n), seconds });

function indexer(...answers: Array<RecordedResponse | ConnectionFailure>) {
  const fake = fakeOpenSearch(...answers);
  const client = createOpenSearchClient({ endpoint: 'http://127.0.0.1:9200', Connection: fake.Connection, maxRetries: 0 });
  const warnings: Array<Record<string, unknown>> = [];
  const run = (records: DynamoDBRecord[]) => indexReportingRecords(client, PREFIX, records, { warn: (_message, extra) => warnings.push(extra) });
  return { run, requests: fake.requests, warnings };
}

/** The answer the cluster gives to `records`, item by item. */
function answerFor(records: DynamoDBRecord[], outcomes: BulkOutcome[]): RecordedResponse {
  const { operations } = planBulk(records, PREFIX);
  return bulkAnswer(operations.map((op, i) => bulkItem(op.action, op.index, op.id, op.version, outcomes[i]!)));
}

describe('stream records to bulk operations', () => {
  it('INSERT/MODIFY index the row under its row key with an external version; REMOVE deletes', () => {
    const row = assistantRow('a-1');
    const records = [writeRecord(row, at(1)), removeRecord('t1#voc#v-9', at(2, SECOND + 1))];
    const { operations, rejected } = planBulk(records, PREFIX);
    expect(rejected).toEqual([]);
    expect(operations.map(({ lines }) => lines)).toEqual([
      [
        `{"index":{"_index":"${PREFIX}-assistant","_id":"t1#assistant#a-1","version":${SECOND}000000001,"version_type":"external"}}`,
        JSON.stringify({
          tenantId: 't1',
          rowId: 'a-1',
          datetimeMs: DATETIME,
          row: row.row,
          ...indexedFields('assistant', JSON.parse(row.row) as Record<string, unknown>),
        }),
      ],
      [`{"delete":{"_index":"${PREFIX}-voc","_id":"t1#voc#v-9","version":${SECOND + 1}000000002,"version_type":"external"}}`],
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
      removeRecord(item.pk, at(43, SECOND + 2)),
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
    const noImage: DynamoDBRecord = { ...good, dynamodb: { ...good.dynamodb, NewImage: undefined, SequenceNumber: sequenceNumber(4) } };
    const badRemove = removeRecord('t1#notes#x', at(5));
    const noTime: DynamoDBRecord = { ...good, dynamodb: { ...good.dynamodb, ApproximateCreationDateTime: undefined, SequenceNumber: sequenceNumber(6) } };
    const { operations, rejected } = planBulk([good, notJson, wrongKey, noImage, badRemove, noTime], PREFIX);
    expect(operations.map((op) => op.sequenceNumber)).toEqual([sequenceNumber(1)]);
    expect(rejected.map((r) => r.sequenceNumber)).toEqual([2, 3, 4, 5, 6].map((n) => sequenceNumber(n)));
  });

  it('a record without a sequence number is not a stream record at all', () => {
    const record = writeRecord(assistantRow('a-1'), at(1));
    expect(() => planBulk([{ ...record, dynamodb: { ...record.dynamodb, SequenceNumber: undefined } }], PREFIX)).toThrow(/SequenceNumber/);
  });

  it('a row key too long for a document id is replaced by its digest', () => {
    expect(documentId('t1#assistant#short')).toBe('t1#assistant#short');
    const long = `t1#assistant#${'x'.repeat(600)}`;
    expect(documentId(long)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(documentId(long)).toBe(documentId(long));
  });

  it('which bulk items count as applied', () => {
    const records = [1, 2, 3, 4, 5].map((n) => writeRecord(assistantRow(`a-${n}`), at(n)));
    const { operations } = planBulk([...records, removeRecord('t1#assistant#gone', at(6)), removeRecord('t1#assistant#a-1', at(7))], PREFIX);
    const outcomes: BulkOutcome[] = ['created', 'updated', 'conflict', 'rejected', 'mapping', 'not_found', 'deleted'];
    const items = operations.map((op, i) => bulkItem(op.action, op.index, op.id, op.version, outcomes[i]!));
    expect(failedOperations(operations, items).map((f) => [f.operation.sequenceNumber, f.status])).toEqual([
      [sequenceNumber(4), 429],
      [sequenceNumber(5), 400],
    ]);
    // An answer with fewer items than operations leaves the rest failed.
    expect(failedOperations(operations, items.slice(0, 6)).map((f) => f.operation.sequenceNumber)).toContain(sequenceNumber(7));
  });
});

describe('a batch through the client', () => {
  it('sends one bulk request and reports exactly the item that failed', async () => {
    const records = [
      writeRecord(assistantRow('a-1'), at(1)),
      writeRecord(assistantRow('a-2'), at(2)),
      writeRecord(vocRow('v-1'), at(3)),
      removeRecord('t1#assistant#a-0', at(4)),
    ];
    const { run, requests, warnings } = indexer(answerFor(records, ['created', 'rejected', 'created', 'deleted']));
    expect(await run(records)).toEqual({ batchItemFailures: [{ itemIdentifier: sequenceNumber(2) }] });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/_bulk' });
    expect(requests[0]!.headers['content-type']).toBe('application/x-ndjson');
    expect(requests[0]!.body.split('\n')).toHaveLength(3 * 2 + 1 + 1);
    expect(warnings).toEqual([expect.objectContaining({ sequenceNumber: sequenceNumber(2), status: 429 })]);
  });

  it('version conflicts (a replay, or a newer change indexed first) and deletes of absent rows are success', async () => {
    const item = assistantRow('a-1');
    const newer = writeRecord(item, at(9), 'MODIFY');
    const replayedOlder = writeRecord(item, at(8), 'MODIFY');
    const remove = removeRecord('t1#assistant#never-indexed', at(10));
    const records = [replayedOlder, newer, remove];
    const { run, requests } = indexer(answerFor(records, ['conflict', 'conflict', 'not_found']));
    expect(await run(records)).toEqual({ batchItemFailures: [] });
    // The older record went out with the lower version: OpenSearch keeps the newer document.
    const versions = requests[0]!.body
      .split('\n')
      .filter((line) => line.includes('"version_type"'))
      .map((line) => BigInt(/"version":(\d+)/.exec(line)![1]!));
    expect(versions[0]! < versions[1]!).toBe(true);
  });

  it('reports rejected records alongside failed items, in record order, and sends only the good ones', async () => {
    const good = writeRecord(assistantRow('a-1'), at(1));
    const bad = writeRecord({ ...assistantRow('a-2'), row: 'not json' }, at(2));
    const failing = writeRecord(assistantRow('a-3'), at(3));
    const { run, requests } = indexer(answerFor([good, failing], ['created', 'mapping']));
    expect(await run([good, bad, failing])).toEqual({ batchItemFailures: [{ itemIdentifier: sequenceNumber(2) }, { itemIdentifier: sequenceNumber(3) }] });
    expect(requests[0]!.body.split('\n').filter(Boolean)).toHaveLength(4);
  });

  it('sends nothing when nothing is indexable', async () => {
    const { run, requests } = indexer();
    expect(await run([writeRecord({ ...assistantRow('a-2'), row: 'not json' }, at(2))])).toEqual({ batchItemFailures: [{ itemIdentifier: sequenceNumber(2) }] });
    expect(requests).toHaveLength(0);
  });

  it('splits large batches into several requests', async () => {
    const big = (n: number) => writeRecord(assistantRow(`a-${n}`, { Input: 'x'.repeat(2 * 1024 * 1024) }), at(n));
    const records = [big(1), big(2), big(3)];
    const { operations } = planBulk(records, PREFIX);
    const answer = (i: number, outcome: BulkOutcome) => bulkAnswer([bulkItem('index', operations[i]!.index, operations[i]!.id, operations[i]!.version, outcome)]);
    // Each document is about 4 MB (the row text and the indexed Input): one a request.
    const { run, requests } = indexer(answer(0, 'created'), answer(1, 'created'), answer(2, 'rejected'));
    expect(await run(records)).toEqual({ batchItemFailures: [{ itemIdentifier: sequenceNumber(3) }] });
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
    expect(indexedFields('assistant', { ID: 'a', CSat: 'high', Escalated: 'yes', Datetime: 5, Summary: 7, Input: null, BotID: 42 })).toEqual({
      ID: 'a',
      Datetime: 5,
      BotID: 42,
    });
    expect(indexedFields('voc', { Problems: 'hold', KPIs: [{ name: 'x', value: 1 }, 'odd', { name: { deep: true } }] })).toEqual({ KPIs: [{ name: 'x' }, {}] });
  });

  it('ensureIndexes creates both indexes with their mappings, and accepts ones that exist', async () => {
    const fake = fakeOpenSearch(indexCreated(`${PREFIX}-assistant`), indexAlreadyExists(`${PREFIX}-voc`));
    await ensureIndexes(createOpenSearchClient({ endpoint: 'http://127.0.0.1:9200', Connection: fake.Connection }), PREFIX);
    expect(fake.requests.map((r) => [r.method, r.path]).sort()).toEqual([
      ['PUT', `/${PREFIX}-assistant`],
      ['PUT', `/${PREFIX}-voc`],
    ]);
    const assistant = fake.requests.find((r) => r.path.endsWith('-assistant'))!;
    expect(assistant.json).toEqual({ settings: { 'index.mapping.ignore_malformed': true }, mappings: reportingMappings('assistant') });
  });

  it('ensureIndexes fails on any other error', async () => {
    const fake = fakeOpenSearch(indexCreated(`${PREFIX}-assistant`), { statusCode: 403, body: { Message: 'not authorized' } });
    await expect(ensureIndexes(createOpenSearchClient({ endpoint: 'http://127.0.0.1:9200', Connection: fake.Connection }), PREFIX)).rejects.toThrow();
  });
});

describe('the Lambda handler', () => {
  beforeEach(() => {
    vi.resetModules();
    vi.stubEnv('CXM_OPENSEARCH_ENDPOINT', 'http://127.0.0.1:9200');
    vi.stubEnv('CXM_OPENSEARCH_INDEX_PREFIX', PREFIX);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.doUnmock('#shared/store/opensearch-client');
  });

  it('creates the indexes once per container, then indexes each batch', async () => {
    const first = [writeRecord(assistantRow('a-1'), at(1)), writeRecord(assistantRow('a-2'), at(2))];
    const second = [removeRecord('t1#assistant#a-1', at(3))];
    const fake = fakeOpenSearch(
      indexCreated(`${PREFIX}-assistant`),
      indexCreated(`${PREFIX}-voc`),
      answerFor(first, ['created', 'mapping']),
      answerFor(second, ['deleted']),
    );
    vi.doMock('#shared/store/opensearch-client', async (importOriginal) => {
      const original = await importOriginal<typeof import('#shared/store/opensearch-client')>();
      return { ...original, createOpenSearchClient: (options: Parameters<typeof original.createOpenSearchClient>[0]) => original.createOpenSearchClient({ ...options, Connection: fake.Connection }) };
    });
    const { handler } = await import('#functions/indexer/index-reporting-rows');
    expect(await handler({ Records: first })).toEqual({ batchItemFailures: [{ itemIdentifier: sequenceNumber(2) }] });
    expect(await handler({ Records: second })).toEqual({ batchItemFailures: [] });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`PUT /${PREFIX}-assistant`, `PUT /${PREFIX}-voc`, 'POST /_bulk', 'POST /_bulk']);
  });

  it('fails at cold start without its settings', async () => {
    vi.stubEnv('CXM_OPENSEARCH_ENDPOINT', undefined);
    await expect(import('#functions/indexer/index-reporting-rows')).rejects.toThrow(/CXM_OPENSEARCH_ENDPOINT/);
  });
});
