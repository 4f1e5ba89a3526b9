/**
 * `documentWrites`: what keeping each provisioning document's history costs its writes. A replace,
 * a small merge and a keyed merge (Idempotency-Key: the record in the write's own transaction) of a
 * document of about 1 KB, through the store as shipped (a ConsistentRead GetItem, then one
 * TransactWriteItems: the document, the new version, the expiry of the version the retention
 * pushes out, the record), each paired with the same write as the previous release sent it
 * (d89565d^, reproduced below command for command), and a restore, which has no "before". Each
 * write: p50 and p99 latency over sequential writes, and the DynamoDB capacity units per write,
 * counted on a few more writes after the timed ones (ReturnConsumedCapacity TOTAL on every command;
 * a transaction's computed from DynamoDB's rules, as DynamoDB Local undercounts some). The document's
 * history is full before anything is measured, so every measured write prunes, as every write of
 * a document past `keep` versions does. Then the versions list at 1 000 versions: its first page
 * and a page deep in the history (before = half the versions) through the store's listVersions,
 * as the pagination section measures its list through the reporting adapter.
 *
 * On a DynamoDB Local of its own (run-bench.ts), so a write's latency does not measure tables the
 * other sections grew.
 */

import { randomUUID } from 'node:crypto';
import { type AttributeValue, type ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { createTables, type LocalDynamoConnection } from '#infra/local/emulators/dynamodb-local';
import { LOCAL_REGION } from '#infra/local/emulators/local-identity';
import { routeById } from '#shared/api/route-table';
import { applyMergePatch } from '#shared/domain/documents/apply-merge-patch';
import {
  DEFAULT_VERSION_RETENTION,
  MAX_VERSIONS_KEPT,
  type VersionRetention,
} from '#shared/domain/documents/document-versions';
import { formatEntityTag, newEntityTag } from '#shared/domain/documents/entity-tags';
import type { JsonObject } from '#shared/domain/documents/json-value';
import type { IdempotencyClaim } from '#shared/domain/idempotency/recorded-response';
import { requestFingerprint } from '#shared/domain/idempotency/request-fingerprint';
import type { ApiResult } from '#shared/http/api-types';
import { versionHeaders } from '#shared/http/document-version-headers';
import { recordAnswer } from '#shared/http/idempotent-answer';
import { DEFAULT_VERSION_LIMIT } from '#shared/schemas/document-version-schemas';
import type { DocumentsStore } from '#shared/store/documents-store';
import { documentClientOver } from '#shared/store/dynamo-client';
import type { IdempotencyLedger, RecordRequest } from '#shared/store/idempotency-ledger';
import { type IndexSpec, type TableId, tableSpecs } from '#shared/store/table-specs';
import { bindDocumentsStore, bindIdempotencyLedger } from '#shared/store/table-stores';
import type { Progress } from './bench-progress.ts';
import { BENCH_COLLECTION, BENCH_DOCUMENT } from './bench-requests.ts';
import { pairedRatio, round } from './bench-stats.ts';

const TENANT = 'bench-history';
const KEY_ID = 'benchkey0001';
/** The store as shipped writes this document; the previous release's commands write the other. */
const WITH_DOC = 'bench-with-history';
const BEFORE_DOC = 'bench-before-history';
const LIST_DOC = 'bench-listed-history';
/** The stage's default retention: a document past 100 versions prunes one on every write. */
const WRITE_RETENTION: VersionRetention = DEFAULT_VERSION_RETENTION;
/** Writes past `keep` before measuring, so that every measured write prunes. */
const PAST_KEEP = 10;
/** The most a stage may keep: every version of the listed document stays. */
const LIST_RETENTION: VersionRetention = { ...DEFAULT_VERSION_RETENTION, keep: MAX_VERSIONS_KEPT };
const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/** A bot document of about 1 KB of JSON: the bench's bot with the replies and limits a real one carries. */
const HISTORY_DOCUMENT = {
  ...BENCH_DOCUMENT,
  intents: ['invoice-copy', 'refund-status', 'duplicate-charge', 'change-plan', 'update-card', 'cancel-subscription'],
  replies: {
    refund: 'Refunds reach your account five to ten business days after approval; I can look up the status of yours.',
    duplicate: 'A second charge of the same amount is often a pending authorisation that drops off within three days.',
    invoice: 'I can send a copy of any invoice of the last two years to the email address on your account.',
    closing: 'Is there anything else about your invoices or payments I can help you with today?',
  },
  handoff: {
    tags: ['billing', 'priority'],
    note: 'Summarise the issue, the amounts and the dates before handing off.',
  },
  limits: { refundWithoutApprovalEur: 50, messagesPerConversation: 40 },
};

export interface DocumentWritesOptions {
  /** Sequential writes measured per row and side. */
  writes: number;
  /** Versions of the listed document. */
  versions: number;
  /** Requests per list page measured. */
  listSamples: number;
}

/**
 * One side of a write: latency of the timed writes, and capacity units per write of the counted
 * ones (DynamoDB Local's report for a single command, DynamoDB's documented rules for a transaction).
 */
export interface WriteSide {
  p50Ms: number;
  p99Ms: number;
  writeUnits: number;
  readUnits: number;
  /** The write units DynamoDB Local itself reported, which undercount some transactions. */
  localWriteUnits: number;
  /** Whether `writeUnits` holds a transaction's units computed from the rules. */
  computedUnits: boolean;
}

export interface WriteRow {
  write: 'replace' | 'merge' | 'keyed merge' | 'restore';
  with: WriteSide;
  /** The previous release's commands for the same write; null for a restore, which it did not have. */
  before: WriteSide | null;
  /** with / before: the median of paired latencies, and the write units. */
  ratio: { p50: number; writeUnits: number } | null;
}

export interface ListPageFigures {
  /** Undefined for the first page; the cursor's version number for a deep one. */
  before?: number;
  p50Ms: number;
  p99Ms: number;
  versions: number;
  readUnits: number;
}

export interface VersionsListFigures {
  versions: number;
  limit: number;
  samples: number;
  /** Seconds the versions took to write through the store, one after the other. */
  writeSeconds: number;
  firstPage: ListPageFigures;
  deepPage: ListPageFigures;
}

export interface DocumentWritesFigures {
  /** The document's JSON, bytes of UTF-8. */
  documentBytes: number;
  writes: number;
  /** Writes of each side (and requests of each page) counted for their units, after the timed ones. */
  counted: number;
  /** Versions kept per document while writes were measured (every measured write prunes one). */
  keep: number;
  rows: WriteRow[];
  list: VersionsListFigures;
}

/**
 * Capacity units consumed while a meter counted into this. `write` is what the report gives: a
 * single command's units as DynamoDB Local reports them, a TransactWriteItems' computed from
 * DynamoDB's documented rules (see transactionUnits); `localWrite` is DynamoDB Local's own figure
 * for everything, kept beside it.
 */
interface Units {
  read: number;
  write: number;
  localWrite: number;
  /** Transactions whose units were computed rather than taken from DynamoDB Local's report. */
  computed: number;
  /** Commands whose answer carried no ConsumedCapacity. */
  unreported: number;
}

const noUnits = (): Units => ({ read: 0, write: 0, localWrite: 0, computed: 0, unreported: 0 });

/** Commands whose CapacityUnits are read units; every other command the bench sends writes. */
const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

/** One answer's ConsumedCapacity (an object for a single command, one per table for a transaction) as read and write units. */
function reportedUnits(
  command: string,
  consumed: ConsumedCapacity | ConsumedCapacity[],
): { read: number; write: number } {
  const units = { read: 0, write: 0 };
  for (const table of Array.isArray(consumed) ? consumed : [consumed]) {
    // Real DynamoDB may split the total; DynamoDB Local gives CapacityUnits alone.
    const total = table.CapacityUnits ?? 0;
    units.read += table.ReadCapacityUnits ?? (READ_COMMANDS.has(command) ? total : 0);
    units.write += table.WriteCapacityUnits ?? (READ_COMMANDS.has(command) ? 0 : total);
  }
  return units;
}

/** The significant digits of a number as DynamoDB sizes it (sign, point, leading and trailing zeroes trimmed). */
const significantDigits = (n: string) =>
  n.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;

/**
 * An attribute value's size in bytes by DynamoDB's documented rules ("DynamoDB item sizes and
 * formats"): a string its UTF-8 bytes, a number 1 byte per two significant digits plus 1, a
 * boolean or null 1, a list or map 3 plus 1 per element plus the elements (a map's names too).
 */
function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(significantDigits(value.N) / 2) + 1;
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueSize(element), 0);
  if (value.M !== undefined) return 3 + itemSize(value.M) + Object.keys(value.M).length;
  if (value.SS !== undefined) return value.SS.reduce((sum, element) => sum + Buffer.byteLength(element), 0);
  if (value.NS !== undefined)
    return value.NS.reduce((sum, element) => sum + Math.ceil(significantDigits(element) / 2) + 1, 0);
  throw new Error(`no size rule for attribute value ${Object.keys(value).join(', ')}`);
}

/** An item's size: its attribute names and values. */
function itemSize(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);
}

/** The size of a native item (as the document client reads and writes them); 0 for none. */
const nativeSize = (item: Record<string, unknown> | undefined) =>
  item ? itemSize(marshall(item, { removeUndefinedValues: true })) : 0;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The item a transaction's entry writes: its table, key, and for a Put the new item. */
interface Target {
  table: string;
  key: Record<string, unknown>;
  put?: Record<string, unknown>;
}

/** The key of each physical table, from the table specs. */
function keysOf(
  tables: Record<TableId, string>,
): (table: string, item: Record<string, unknown>) => Record<string, unknown> {
  const specs = new Map(Object.entries(tables).map(([id, name]) => [name, tableSpecs[id as TableId]]));
  return (table, item) => {
    const spec = specs.get(table);
    if (!spec) throw new Error(`no spec for table ${table}`);
    const names = [spec.partitionKey.name, ...(spec.sortKey ? [spec.sortKey.name] : [])];
    return Object.fromEntries(names.map((name) => [name, item[name]]));
  };
}

function targetOf(entry: TransactItem, keyOf: ReturnType<typeof keysOf>): Target {
  if (entry.Put)
    return { table: entry.Put.TableName!, key: keyOf(entry.Put.TableName!, entry.Put.Item!), put: entry.Put.Item! };
  if (entry.Update) return { table: entry.Update.TableName!, key: entry.Update.Key! };
  if (entry.Delete) return { table: entry.Delete.TableName!, key: entry.Delete.Key! };
  throw new Error('a ConditionCheck in a measured transaction: no rule for it here');
}

/** What measures a transaction's units from the items it writes, read before and after it. */
interface TransactionSizer {
  reader: DocumentClient;
  keyOf: ReturnType<typeof keysOf>;
  indexesOf: ReturnType<typeof indexesOf>;
}

/** The secondary indexes of each physical table, from the table specs. */
function indexesOf(tables: Record<TableId, string>): (table: string) => readonly IndexSpec[] {
  const specs = new Map(Object.entries(tables).map(([id, name]) => [name, tableSpecs[id as TableId]]));
  return (table) => specs.get(table)?.indexes ?? [];
}

/**
 * The write units an item's change costs its table's indexes: 1 per KB of each index entry it
 * writes (index writes are not part of the transaction's doubling), none where the item holds none
 * of an index's keys (a sparse index).
 */
function indexUnits(indexes: readonly IndexSpec[], item: Record<string, unknown> | undefined): number {
  return indexes.reduce((sum, index) => {
    const keys = [index.partitionKey.name, ...(index.sortKey ? [index.sortKey.name] : [])];
    if (!item || keys.some((name) => item[name] === undefined)) return sum;
    const held = index.include ? [...keys, ...index.include] : Object.keys(item);
    const entry = Object.fromEntries(held.flatMap((name) => (item[name] === undefined ? [] : [[name, item[name]]])));
    return sum + Math.max(1, Math.ceil(nativeSize(entry) / 1024));
  }, 0);
}

/**
 * A TransactWriteItems' write units by DynamoDB's documented rules: 2 per KB of each item written
 * (a transaction prepares and commits), an item sized as the larger of its image before and after
 * (as for a single PutItem or UpdateItem), and its index entries'. DynamoDB Local's own report cannot stand in: it sums,
 * per table, the distinct unit counts of the table's items, so two items of one table that cost
 * the same are counted once (the new version's Put and the pruned version's Update, 4 WRU each
 * for a 1 KB document, report 4). The images are read on a client that is not metered.
 */
async function transactionUnits<T>(sizer: TransactionSizer, entries: TransactItem[], commit: () => Promise<T>) {
  const targets = entries.map((entry) => targetOf(entry, sizer.keyOf));
  const image = async ({ table, key }: Target) =>
    (await sizer.reader.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
  const before = await Promise.all(targets.map(image));
  const result = await commit();
  const after = await Promise.all(targets.map((target) => (target.put ? target.put : image(target))));
  const units = targets.reduce((sum, target, i) => {
    const bytes = Math.max(nativeSize(before[i]), nativeSize(after[i]));
    const indexed = indexUnits(sizer.indexesOf(target.table), after[i] ?? before[i]);
    return sum + 2 * Math.max(1, Math.ceil(bytes / 1024)) + indexed;
  }, 0);
  return { units, result };
}

/** Counts into `units` what `work` consumes. */
type Meter = <T>(units: Units, work: () => Promise<T>) => Promise<T>;

/**
 * Asks every command of `client` for its consumed capacity (ReturnConsumedCapacity TOTAL) and, while
 * a meter counts, adds it to the units of the work that sent it: the bench sends one command at a
 * time, so no work's units mix with another's. Commands sent while nothing counts pass untouched
 * but for the request of their capacity, so timed writes carry no reads of the sizer.
 */
function meterCapacity(client: DynamoDBClient, sizer: TransactionSizer): Meter {
  let counting: Units | undefined;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const send = () => next({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } });
      const into = counting;
      const command = context.commandName ?? '';
      if (!into) return send();
      const entries =
        command === 'TransactWriteItemsCommand' ? (args.input as TransactWriteCommandInput).TransactItems : undefined;
      const computed = entries ? await transactionUnits(sizer, entries, send) : undefined;
      const result = computed ? computed.result : await send();
      const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
      if (consumed === undefined) into.unreported++;
      const reported = consumed === undefined ? { read: 0, write: 0 } : reportedUnits(command, consumed);
      // DynamoDB Local never reports more than the rules give; if it did, the rules here are wrong.
      if (computed && computed.units < reported.write)
        throw new Error(`computed ${computed.units} WRU for a transaction DynamoDB Local reports at ${reported.write}`);
      into.read += reported.read;
      into.write += computed ? computed.units : reported.write;
      into.localWrite += reported.write;
      if (computed) into.computed++;
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  return async (units, work) => {
    counting = units;
    try {
      return await work();
    } finally {
      counting = undefined;
    }
  };
}

/** The percentile `p` (0-100) of `values`, nearest rank. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Writes (and list requests) counted for their units after the timed ones: the sizer's reads stay out of the times. */
const COUNTED = 10;

/** The times of one side's timed writes, and the units of its counted ones. */
interface Side {
  times: number[];
  units: Units;
  counted: number;
}

const newSide = (): Side => ({ times: [], units: noUnits(), counted: 0 });

/** How a side runs one write: timed, or counted by the meter. */
type Act = (side: Side, work: () => Promise<unknown>) => Promise<void>;

const timed: Act = async (side, work) => {
  const started = performance.now();
  await work();
  side.times.push(performance.now() - started);
};

const countedBy =
  (meter: Meter): Act =>
  async (side, work) => {
    await meter(side.units, work);
    side.counted++;
  };

function sideFigures({ times, units, counted }: Side): WriteSide {
  // A command without its capacity would make the units per write silently low.
  if (units.unreported > 0) throw new Error(`${units.unreported} commands reported no ConsumedCapacity`);
  return {
    p50Ms: round(percentile(times, 50), 1),
    p99Ms: round(percentile(times, 99), 1),
    writeUnits: round(units.write / counted),
    readUnits: round(units.read / counted),
    localWriteUnits: round(units.localWrite / counted),
    computedUnits: units.computed > 0,
  };
}

/**
 * `act` on `run(i)` of each side for i from `from` to `to`, one after the other; which side goes
 * first alternates, so that a machine slowing down mid-run slows both alike.
 */
async function alternating(
  from: number,
  to: number,
  sides: ReadonlyArray<[Side, (i: number) => Promise<unknown>]>,
  act: Act,
): Promise<void> {
  for (let i = from; i < to; i++)
    for (const [side, run] of i % 2 === 0 ? sides : [...sides].reverse()) await act(side, () => run(i));
}

/**
 * `writes` timed sequential writes of each side, then COUNTED more for their units; the ratio is
 * the median of the pairs'.
 */
async function measureRow(
  write: WriteRow['write'],
  writes: number,
  meter: Meter,
  withWrite: (i: number) => Promise<unknown>,
  beforeWrite?: (i: number) => Promise<unknown>,
): Promise<WriteRow> {
  const shipped = newSide();
  const previous = newSide();
  const sides: Array<[Side, (i: number) => Promise<unknown>]> = [[shipped, withWrite]];
  if (beforeWrite) sides.push([previous, beforeWrite]);
  await alternating(0, writes, sides, timed);
  await alternating(writes, writes + COUNTED, sides, countedBy(meter));
  const figures = sideFigures(shipped);
  if (!beforeWrite) return { write, with: figures, before: null, ratio: null };
  const before = sideFigures(previous);
  const ratio = {
    p50: round(pairedRatio(shipped.times, previous.times)),
    writeUnits: round(figures.writeUnits / before.writeUnits),
  };
  return { write, with: figures, before, ratio };
}

/** The document's key in the documents table, as the store makes it. */
const documentKey = (docId: string) => ({ pk: `${TENANT}#${BENCH_COLLECTION}`, sk: docId });

/** The merge of write `i`: a field of a few bytes, so the document keeps its size. */
const patchOf = (i: number): JsonObject => ({ escalation: { afterMinutes: (i % 55) + 5 } });

/** The replace of write `i`: the whole document again, one value changed. */
const replacementOf = (i: number): string => JSON.stringify(applyMergePatch(HISTORY_DOCUMENT, patchOf(i)));

/** The claim a keyed merge of `patch` carries: a fresh key, and the fingerprint the chain computes. */
function mergeClaim(docId: string, patch: JsonObject): IdempotencyClaim {
  const route = routeById('mergeCurrentDocument');
  const pathParameters = { tenantId: TENANT, collection: BENCH_COLLECTION, docId };
  return {
    key: randomUUID(),
    fingerprint: requestFingerprint({ method: route.method, pathTemplate: route.path, pathParameters, body: patch }),
  };
}

/** The record request the merge handler passes, answering as `answer` does. */
function recordOf<Written>(
  ledger: IdempotencyLedger,
  claim: IdempotencyClaim,
  answer: (written: Written) => ApiResult,
): RecordRequest<Written> {
  const record = recordAnswer(ledger, claim, answer);
  if (!record) throw new Error('a claim records an answer');
  return record;
}

/** The merge handler's answer as shipped: the document, its ETag and Content-Location. */
const mergeAnswer = (docId: string) => (written: { json: string; etag: string; version: number }) => ({
  status: 200,
  bodyText: written.json,
  headers: versionHeaders(
    `http://127.0.0.1/api/v1/provisioning/tenants/${TENANT}/${BENCH_COLLECTION}/${docId}/versions/current`,
    written,
  ),
});

/** The merge handler's answer in d89565d^: the document and its ETag. */
const previousMergeAnswer = ({ json, etag }: { json: string; etag: string }) => ({
  status: 200,
  bodyText: json,
  headers: { ETag: formatEntityTag(etag) },
});

/** The write, or a throw: a refused or replayed write would measure something else. */
function written<T extends { kind: string }>(outcome: T): Extract<T, { kind: 'written' }> {
  if (outcome.kind !== 'written') throw new Error(`a measured write answered ${outcome.kind}`);
  return outcome as Extract<T, { kind: 'written' }>;
}

/** One write of the previous release: of document `docId`, the bench's `i`th. */
type PreviousWrite = (docId: string, i: number) => Promise<void>;

type DocumentClient = ReturnType<typeof documentClientOver>;

/**
 * The previous release's writes, as `git show d89565d^:shared/store/documents-store.ts` sent them
 * for the writes measured here (no preconditions, one writer: none of its retries runs, and a
 * refusal is thrown rather than retried). An unkeyed replace was ONE UpdateItem (no read, no
 * transaction; its only condition was a precondition's, so none here); a merge a ConsistentRead
 * GetItem then an UpdateItem on condition that the version is still the one read; a keyed merge
 * the same read then a TransactWriteItems of that update and the idempotency record.
 */
function previousRelease(
  client: DocumentClient,
  table: string,
  ledger: IdempotencyLedger,
): { replace: PreviousWrite; merge: PreviousWrite; keyedMerge: PreviousWrite } {
  return {
    async replace(docId, i) {
      await client.send(new UpdateCommand(previousReplace(table, docId, replacementOf(i))));
    },
    async merge(docId, i) {
      const { update } = await previousMerge(client, table, docId, patchOf(i));
      await client.send(new UpdateCommand(update));
    },
    async keyedMerge(docId, i) {
      const patch = patchOf(i);
      const { update, json, etag } = await previousMerge(client, table, docId, patch);
      const record = recordOf(ledger, mergeClaim(docId, patch), previousMergeAnswer);
      await client.send(
        new TransactWriteCommand({
          ClientRequestToken: `${etag}.0`,
          TransactItems: [
            { Update: update },
            record.ledger.recordItem(TENANT, record.claim, record.response({ json, etag }), Date.now()),
          ],
        }),
      );
    },
  };
}

/** d89565d^'s merge: the document read (strongly consistent), and its update on condition of the version read. */
async function previousMerge(client: DocumentClient, table: string, docId: string, patch: JsonObject) {
  const { Item } = await client.send(
    new GetCommand({ TableName: table, Key: documentKey(docId), ConsistentRead: true }),
  );
  if (!Item) throw new Error(`no document ${docId} to merge into`);
  const version = Number(Item.version);
  const json = JSON.stringify(applyMergePatch(JSON.parse(String(Item.data)) as JsonObject, patch));
  const etag = newEntityTag();
  const update = {
    TableName: table,
    Key: documentKey(docId),
    UpdateExpression: 'SET #data = :data, #version = :next, #etag = :etag, updatedAt = :now, #change = :merged',
    ConditionExpression: '#version = :version',
    ExpressionAttributeNames: { '#data': 'data', '#version': 'version', '#etag': 'etag', '#change': 'change' },
    ExpressionAttributeValues: {
      ':data': json,
      ':version': version,
      ':next': version + 1,
      ':etag': etag,
      ':now': new Date().toISOString(),
      ':merged': 'merged',
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  return { update, json, etag };
}

/** d89565d^'s replace: the version counted up in the update itself, the old attributes returned to tell a create. */
function previousReplace(table: string, docId: string, json: string) {
  return {
    TableName: table,
    Key: documentKey(docId),
    UpdateExpression:
      'SET #data = :data, #version = if_not_exists(#version, :zero) + :one, #etag = :etag, updatedAt = :now, tenantId = :tenant, #collection = :collection, #change = :replaced',
    ExpressionAttributeNames: {
      '#data': 'data',
      '#version': 'version',
      '#etag': 'etag',
      '#collection': 'collection',
      '#change': 'change',
    },
    ExpressionAttributeValues: {
      ':data': json,
      ':zero': 0,
      ':one': 1,
      ':etag': newEntityTag(),
      ':now': new Date().toISOString(),
      ':tenant': TENANT,
      ':collection': BENCH_COLLECTION,
      ':replaced': 'replaced',
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    ReturnValues: 'UPDATED_OLD' as const,
  };
}

/** The tables, the metered client and the stores the section measures. */
interface Bench {
  documents: DocumentsStore;
  listed: DocumentsStore;
  previous: ReturnType<typeof previousRelease>;
  ledger: IdempotencyLedger;
  meter: Meter;
}

/** The shipped store's writes of the four rows, on the document whose history is full. */
async function measureWriteRows(bench: Bench, writes: number, progress: Progress): Promise<WriteRow[]> {
  const { documents, previous, ledger, meter } = bench;
  const by = { by: KEY_ID };
  progress(`document writes: replace, ${writes} with history and ${writes} as before`);
  const replace = await measureRow(
    'replace',
    writes,
    meter,
    async (i) => written(await documents.replace(TENANT, BENCH_COLLECTION, WITH_DOC, replacementOf(i), by)),
    (i) => previous.replace(BEFORE_DOC, i),
  );
  const merge = (i: number) => (current: JsonObject) => JSON.stringify(applyMergePatch(current, patchOf(i)));
  progress(`document writes: merge, ${writes} each`);
  const merged = await measureRow(
    'merge',
    writes,
    meter,
    async (i) => written(await documents.update(TENANT, BENCH_COLLECTION, WITH_DOC, merge(i), by)),
    (i) => previous.merge(BEFORE_DOC, i),
  );
  progress(`document writes: keyed merge, ${writes} each`);
  const keyed = await measureRow(
    'keyed merge',
    writes,
    meter,
    async (i) => {
      const record = recordOf(ledger, mergeClaim(WITH_DOC, patchOf(i)), mergeAnswer(WITH_DOC));
      return written(await documents.update(TENANT, BENCH_COLLECTION, WITH_DOC, merge(i), { ...by, record }));
    },
    (i) => previous.keyedMerge(BEFORE_DOC, i),
  );
  progress(`document writes: restore, ${writes}`);
  return [replace, merged, keyed, await measureRestores(documents, writes, meter)];
}

/** Restores of the version before the current one: each puts back the document of two writes ago. */
async function measureRestores(documents: DocumentsStore, writes: number, meter: Meter): Promise<WriteRow> {
  let newest = (await documents.read(TENANT, BENCH_COLLECTION, WITH_DOC))?.version ?? 0;
  return measureRow('restore', writes, meter, async () => {
    newest = written(await documents.restore(TENANT, BENCH_COLLECTION, WITH_DOC, newest - 1, { by: KEY_ID })).version;
  });
}

/** `count` versions of `docId`, written one after the other through `documents`. */
async function writeVersions(documents: DocumentsStore, docId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    written(await documents.replace(TENANT, BENCH_COLLECTION, docId, replacementOf(i), { by: KEY_ID }));
}

/** The listed document's first page of versions (`before` undefined) or the page below `before`, checked. */
function listPage(bench: Bench, versions: number, before: number | undefined) {
  return async () => {
    const limit = DEFAULT_VERSION_LIMIT;
    const page = await bench.listed.listVersions(TENANT, BENCH_COLLECTION, LIST_DOC, { limit, before });
    const top = before === undefined ? versions : before - 1;
    if (page?.versions.length !== limit || page.versions[0]?.number !== top)
      throw new Error(`a measured page of versions starts at ${page?.versions[0]?.number}, not ${top}`);
  };
}

/** The first page of a document of `options.versions` versions and the page below half of them, alternating. */
async function measureVersionsList(
  bench: Bench,
  options: DocumentWritesOptions,
  progress: Progress,
): Promise<VersionsListFigures> {
  progress(`document writes: writing ${options.versions} versions of one document through the store`);
  const started = performance.now();
  await writeVersions(bench.listed, LIST_DOC, options.versions);
  const writeSeconds = round((performance.now() - started) / 1000, 1);
  const before = Math.floor(options.versions / 2);
  progress(`document writes: versions list, page 1 against before=${before}, ${options.listSamples} times each`);
  const first = newSide();
  const deep = newSide();
  const sides: Array<[Side, () => Promise<unknown>]> = [
    [first, listPage(bench, options.versions, undefined)],
    [deep, listPage(bench, options.versions, before)],
  ];
  await alternating(0, options.listSamples, sides, timed);
  await alternating(0, COUNTED, sides, countedBy(bench.meter));
  const page = (side: Side): ListPageFigures => {
    const { p50Ms, p99Ms, readUnits } = sideFigures(side);
    return { p50Ms, p99Ms, versions: DEFAULT_VERSION_LIMIT, readUnits };
  };
  return {
    versions: options.versions,
    limit: DEFAULT_VERSION_LIMIT,
    samples: options.listSamples,
    writeSeconds,
    firstPage: page(first),
    deepPage: { before, ...page(deep) },
  };
}

/** The store as shipped on the section's tables, and the previous release's commands beside it. */
function benchOn(dynamo: DynamoDBClient, unmetered: DynamoDBClient, tables: Record<TableId, string>): Bench {
  const meter = meterCapacity(dynamo, {
    reader: documentClientOver(unmetered),
    keyOf: keysOf(tables),
    indexesOf: indexesOf(tables),
  });
  const client = documentClientOver(dynamo);
  const ledger = bindIdempotencyLedger(client, tables, IDEMPOTENCY_TTL_MS);
  return {
    documents: bindDocumentsStore(client, tables, WRITE_RETENTION),
    listed: bindDocumentsStore(client, tables, LIST_RETENTION),
    previous: previousRelease(client, tables.documents, ledger),
    ledger,
    meter,
  };
}

/**
 * The `documentWrites` section on `local`, a DynamoDB Local the caller started for it.
 *
 * @example report.documentWrites = await measureDocumentWrites(own, { writes: 200, versions: 1000, listSamples: 100 }, progress);
 */
export async function measureDocumentWrites(
  local: LocalDynamoConnection,
  options: DocumentWritesOptions,
  progress: Progress,
): Promise<DocumentWritesFigures> {
  const tables = (await createTables(local, 'bench-history')) as Record<TableId, string>;
  const connect = () =>
    new DynamoDBClient({ endpoint: local.endpoint, region: LOCAL_REGION, credentials: { ...local.credentials } });
  // The metered client the stores write through, and one that reads the images a transaction's units are computed from.
  const [dynamo, unmetered] = [connect(), connect()];
  try {
    const bench = benchOn(dynamo, unmetered, tables);
    progress(
      `document writes: filling the history (${WRITE_RETENTION.keep + PAST_KEEP} versions, keep ${WRITE_RETENTION.keep})`,
    );
    await writeVersions(bench.documents, WITH_DOC, WRITE_RETENTION.keep + PAST_KEEP);
    await bench.previous.replace(BEFORE_DOC, 0);
    const rows = await measureWriteRows(bench, options.writes, progress);
    const list = await measureVersionsList(bench, options, progress);
    return {
      documentBytes: Buffer.byteLength(JSON.stringify(HISTORY_DOCUMENT)),
      writes: options.writes,
      counted: COUNTED,
      keep: WRITE_RETENTION.keep,
      rows,
      list,
    };
  } finally {
    dynamo.destroy();
    unmetered.destroy();
  }
}
