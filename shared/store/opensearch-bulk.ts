/**
 * From reporting-table stream records to one OpenSearch bulk request, and back from its answer to
 * the records that must be retried. Pure: the indexer sends what this plans.
 *
 * Where: a row is written to the year index of its own Datetime (opensearch-index-names.ts),
 * routed by its tenant. The stream shows old images too (NEW_AND_OLD_IMAGES), so a MODIFY whose
 * old Datetime lies in another year also deletes the old copy from that year's index, in the same
 * request, and a REMOVE deletes from the index of the old image's year.
 *
 * Every operation carries the row key as document id and an external version, so a replayed or
 * out-of-order record can never overwrite a newer one: OpenSearch refuses an older or equal
 * version with a 409, which is success here (the index already holds that change or a later one).
 *
 * The version comes from the stream record, not from the item: a REMOVE's item is gone, and
 * deletes must be ordered against the writes they follow. It is `ApproximateCreationDateTime`
 * (whole seconds) * 10^9 + the last nine digits of `SequenceNumber`, which fits OpenSearch's
 * signed 64-bit versions until the year 2262. Across seconds the time orders an item's changes;
 * within one second the sequence number does: an item's records share a shard, whose sequence
 * numbers increase, and in the numbers DynamoDB issues the trailing digits count records up, so
 * they misorder only if they wrap past 10^9 within that very second. (The whole sequence number,
 * 21 to 40 digits, does not fit a long.) A version stamped by the writer would be exact.
 *
 * An externally versioned delete makes OpenSearch create a missing index (to keep the version as
 * a tombstone): a delete aimed at a year that was never indexed leaves an empty year index, made
 * from the template like any other; the bounded years (opensearch-index-names.ts) bound that too.
 */

import { createHash } from 'node:crypto';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { reportingYearIndex } from './opensearch-index-names.ts';
import { indexedFields, rowHash } from './opensearch-mappings.ts';
import { rowKey } from './reporting-keys.ts';

const MAX_VERSION = 2n ** 63n - 1n;
const TIE_BREAK = 10n ** 9n;
// OpenSearch refuses document ids over 512 bytes.
const MAX_ID_BYTES = 512;

export interface BulkOperation {
  /** The stream record this operation comes from: what Lambda is told when it fails. */
  sequenceNumber: string;
  action: 'index' | 'delete';
  /** The year index (opensearch-index-names.ts). */
  index: string;
  id: string;
  /** The tenant: every document is routed by it (the mappings require a routing). */
  routing: string;
  version: bigint;
  /** NDJSON lines of the bulk body: the action and, for an index, the document. */
  lines: string[];
}

export interface RejectedRecord {
  sequenceNumber: string;
  reason: string;
}

export interface BulkPlan {
  /** In record order; a record that moves a row to another year gives two (index, then delete). */
  operations: BulkOperation[];
  /** Records that cannot become an operation; reported as failures so they reach the DLQ. */
  rejected: RejectedRecord[];
}

type Image = Record<string, AttributeValue> | undefined;
type Target = Pick<BulkOperation, 'index' | 'id' | 'routing' | 'version'>;

const isKind = (value: unknown): value is ReportKind => value === 'assistant' || value === 'voc';

/** The external version of a stream record (see above); undefined when the record lacks its parts. */
export function externalVersion(record: DynamoDBRecord): bigint | undefined {
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  const sequence = record.dynamodb?.SequenceNumber;
  if (
    typeof seconds !== 'number' ||
    !Number.isFinite(seconds) ||
    seconds < 0 ||
    !sequence ||
    !/^\d{1,40}$/.test(sequence)
  )
    return undefined;
  const version = BigInt(Math.floor(seconds)) * TIE_BREAK + (BigInt(sequence) % TIE_BREAK);
  return version >= 1n && version <= MAX_VERSION ? version : undefined;
}

/** The row key, or a digest of it when it is too long to be a document id (reads never use ids). */
export function documentId(pk: string): string {
  if (Buffer.byteLength(pk) <= MAX_ID_BYTES) return pk;
  return `sha256:${createHash('sha256').update(pk).digest('hex')}`;
}

/** Tenant and kind of a row key `<tenant>#<kind>#<id>` (tenant ids hold no `#`; row ids may). */
function parseRowKey(pk: string): { tenantId: string; kind: ReportKind; id: string } | undefined {
  const match = /^([^#]+)#([^#]+)#([\s\S]+)$/.exec(pk);
  if (!match || !isKind(match[2])) return undefined;
  return { tenantId: match[1]!, kind: match[2], id: match[3]! };
}

/**
 * One bulk operation at `target` with an external version, its action line written by hand:
 * versions pass 2^53, which JSON.stringify of a number would round.
 *
 * @example operation(key, 'delete', { index, id, routing: tenantId, version })
 */
export function operation(
  sequenceNumber: string,
  action: 'index' | 'delete',
  target: Target,
  document?: string,
): BulkOperation {
  const { index, id, routing, version } = target;
  // Written by hand: versions pass 2^53, which JSON.stringify of a number would round.
  const meta = `"_index":${JSON.stringify(index)},"_id":${JSON.stringify(id)},"routing":${JSON.stringify(routing)}`;
  const line = `{"${action}":{${meta},"version":${version},"version_type":"external"}}`;
  return { sequenceNumber, action, ...target, lines: document === undefined ? [line] : [line, document] };
}

/** The year index an image of a reporting row was written to; undefined when the image holds no Datetime. */
function yearIndexOf(image: Image, kind: ReportKind, prefix: string): string | undefined {
  const datetimeMs = Number(image?.datetimeMs?.N);
  return Number.isSafeInteger(datetimeMs) ? reportingYearIndex(prefix, kind, datetimeMs) : undefined;
}

export type Planned = { operations: BulkOperation[] } | { reason: string };

/**
 * The index operation that puts a stored reporting item into its year index at `version`;
 * `sequenceNumber` names it in failures (a stream record's, or the row key of a table item).
 */
export function planIndex(image: Image, sequenceNumber: string, version: bigint, prefix: string): Planned {
  const pk = image?.pk?.S;
  const tenantId = image?.tenantId?.S;
  const kind = image?.kind?.S;
  const rowId = image?.rowId?.S;
  const datetimeMs = Number(image?.datetimeMs?.N);
  const rowText = image?.row?.S;
  if (!pk || !tenantId || !isKind(kind) || !rowId || !Number.isSafeInteger(datetimeMs) || rowText === undefined) {
    return { reason: 'item is not a reporting row (pk, tenantId, kind, rowId, datetimeMs, row)' };
  }
  if (pk !== rowKey(tenantId, kind, rowId)) return { reason: `pk ${pk} does not match tenantId, kind and rowId` };
  let row: unknown;
  try {
    row = JSON.parse(rowText);
  } catch {
    return { reason: `row of ${pk} is not JSON` };
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row))
    return { reason: `row of ${pk} is not a JSON object` };
  const indexed = { tenantId, kind, rowId, datetimeMs, rowText, row: row as Record<string, unknown> };
  return { operations: [indexOperation(indexed, sequenceNumber, version, prefix)] };
}

/** A reporting row as its item holds it, its text parsed. */
export interface IndexedRow {
  tenantId: string;
  kind: ReportKind;
  rowId: string;
  datetimeMs: number;
  /** The row's JSON text, as stored: what the lists answer. */
  rowText: string;
  row: Record<string, unknown>;
}

/**
 * The bulk operation that writes `row` into its year index at `version`, routed by its tenant, its
 * document: our own fields (tenant filter, window, order, the text and its digest), then the spec
 * fields the mappings index.
 *
 * @example indexOperation({ tenantId: 't1', kind: 'assistant', rowId: 'a-1', datetimeMs, rowText, row }, '1', 1n, prefix)
 */
export function indexOperation(
  row: IndexedRow,
  sequenceNumber: string,
  version: bigint,
  prefix: string,
): BulkOperation {
  const { tenantId, kind, rowId, datetimeMs, rowText } = row;
  const target: Target = {
    index: reportingYearIndex(prefix, kind, datetimeMs),
    id: documentId(rowKey(tenantId, kind, rowId)),
    routing: tenantId,
    version,
  };
  const document = {
    tenantId,
    rowId,
    datetimeMs,
    row: rowText,
    rowHash: rowHash(rowText),
    ...indexedFields(kind, row.row),
  };
  return operation(sequenceNumber, 'index', target, JSON.stringify(document));
}

function planWrite(record: DynamoDBRecord, sequenceNumber: string, version: bigint, prefix: string): Planned {
  const image = record.dynamodb?.NewImage;
  if (!image) return { reason: `${record.eventName} without a new image (the stream must show NEW_AND_OLD_IMAGES)` };
  const planned = planIndex(image, sequenceNumber, version, prefix);
  if (!('operations' in planned)) return planned;
  const [indexed] = planned.operations as [BulkOperation];
  // A MODIFY that moved the row to another year: its old copy must not stay listed at the old
  // time. The same version orders this delete against the old index's own history. (A MODIFY
  // without an old image, from a stream that showed new images only, cannot tell; an old image
  // without a Datetime was no reporting row, so nothing of it was indexed.)
  const kind = image.kind!.S as ReportKind;
  const previous = record.eventName === 'MODIFY' ? yearIndexOf(record.dynamodb?.OldImage, kind, prefix) : undefined;
  if (previous !== undefined && previous !== indexed.index)
    planned.operations.push(
      operation(sequenceNumber, 'delete', { index: previous, id: indexed.id, routing: indexed.routing, version }),
    );
  return planned;
}

function planRemove(record: DynamoDBRecord, sequenceNumber: string, version: bigint, prefix: string): Planned {
  const pk = record.dynamodb?.Keys?.pk?.S;
  const key = pk === undefined ? undefined : parseRowKey(pk);
  if (!pk || !key) return { reason: 'REMOVE of a key that is not a reporting row key' };
  const oldImage = record.dynamodb?.OldImage;
  // Without the old Datetime the row's year index is unknown: fail the record (it reaches the DLQ
  // and its alarm) rather than leave the row listed with no trace.
  if (!oldImage)
    return {
      reason:
        'REMOVE without an old image (the stream must show NEW_AND_OLD_IMAGES): the year index of the row is unknown',
    };
  const index = yearIndexOf(oldImage, key.kind, prefix);
  if (index === undefined) return { reason: `REMOVE of ${pk} whose old image has no datetimeMs` };
  return {
    operations: [operation(sequenceNumber, 'delete', { index, id: documentId(pk), routing: key.tenantId, version })],
  };
}

export function planBulk(records: DynamoDBRecord[], prefix: string): BulkPlan {
  const plan: BulkPlan = { operations: [], rejected: [] };
  for (const record of records) {
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    // Lambda identifies a failed record by its sequence number only: without one, nothing can be reported.
    if (!sequenceNumber) throw new Error('a record without dynamodb.SequenceNumber is not a DynamoDB stream record');
    const version = externalVersion(record);
    const planned: Planned =
      version === undefined
        ? { reason: 'record without a usable ApproximateCreationDateTime and SequenceNumber' }
        : record.eventName === 'REMOVE'
          ? planRemove(record, sequenceNumber, version, prefix)
          : record.eventName === 'INSERT' || record.eventName === 'MODIFY'
            ? planWrite(record, sequenceNumber, version, prefix)
            : { reason: `unknown event ${String(record.eventName)}` };
    if ('operations' in planned) plan.operations.push(...planned.operations);
    else plan.rejected.push({ sequenceNumber, reason: planned.reason });
  }
  return plan;
}

export function bulkBody(operations: BulkOperation[]): string[] {
  return operations.flatMap((operation) => operation.lines);
}

/** One item of a bulk response: `{index: {...}}` or `{delete: {...}}`, in request order. */
export type BulkResponseItem = Partial<
  Record<'index' | 'delete' | 'create' | 'update', { status?: number; error?: unknown }>
>;

export interface FailedOperation {
  operation: BulkOperation;
  status: number | undefined;
  error: unknown;
}

/**
 * The operations that did not take effect and must be retried. A 409 is an older or equal version
 * (a replay, or a newer change indexed first) and a 404 on delete is a document already gone:
 * both leave the index as it should be.
 */
export function failedOperations(operations: BulkOperation[], items: BulkResponseItem[]): FailedOperation[] {
  const failed: FailedOperation[] = [];
  operations.forEach((operation, i) => {
    const result = items[i]?.[operation.action];
    const status = result?.status;
    const applied =
      status !== undefined &&
      ((status >= 200 && status < 300) || status === 409 || (operation.action === 'delete' && status === 404));
    if (!applied) failed.push({ operation, status, error: result?.error ?? 'no result for this operation' });
  });
  return failed;
}
