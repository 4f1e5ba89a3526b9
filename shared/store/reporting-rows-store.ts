/**
 * Writes shaped reporting rows to the reporting table, the lists' source of truth, and keeps the
 * list's counts exact in the same transactions (count-buckets.ts): by import and seed here, and by
 * any pipeline that writes rows, which must come through this store (a row written around it is not
 * counted until `rebuildCounts`).
 *
 * Each batch is one transaction of its rows and the count buckets they move. A row's old Datetime
 * is not known before the write, so the first attempt expects every row to be new; a row that
 * exists fails its condition and DynamoDB returns it (ALL_OLD), and the next attempt expects
 * exactly that version, moving its count from the old buckets to the new. The conditions make
 * concurrent writers of one row, and an SDK retry of a transaction that had committed, land on the
 * right counts: whoever loses learns the row's current version and tries again.
 */
import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { bucketsOf } from '#shared/domain/reporting/count-buckets';
import { REPORT_KINDS, type ReportKind } from '#shared/domain/reporting/report-cursor';
import type { ShapedRow } from '#shared/domain/reporting/report-rows';
import { countKey, listKey, rowKey, sortKey } from './reporting-keys.ts';
import { tableSpecs } from './table-specs.ts';
import { backoff, busyReason, COUNT_BUCKETS } from './write-retry.ts';

export interface ReportingRowsStore {
  /** Writes (or overwrites, by id) rows of one list and moves their counts. */
  putRows(tenantId: string, kind: ReportKind, rows: ShapedRow[]): Promise<void>;
  /** Removes rows of one list by id (absent ids are no-ops) and their counts. */
  deleteRows(tenantId: string, kind: ReportKind, ids: string[]): Promise<void>;
  /**
   * Recomputes every count from the rows: once after rows were written around this store, or when
   * a stage gets its counts table. Run it while nothing writes rows (it replaces the counts).
   */
  rebuildCounts(options?: {
    tenantId?: string;
    onProgress?: (rows: number) => void;
  }): Promise<{ lists: number; rows: number }>;
}

export interface ReportingTables {
  rows: string;
  counts: string;
}

/** The reporting table item of a shaped row (what the indexer later reads from the stream). */
export function reportingItem(tenantId: string, kind: ReportKind, shaped: ShapedRow) {
  return {
    pk: rowKey(tenantId, kind, shaped.id),
    gpk: listKey(tenantId, kind),
    gsk: sortKey(shaped.datetimeMs, shaped.id),
    tenantId,
    kind,
    rowId: shaped.id,
    datetimeMs: shaped.datetimeMs,
    row: JSON.stringify(shaped.row),
  };
}

export type ReportingItem = ReturnType<typeof reportingItem>;

const WINDOW_INDEX = tableSpecs.reporting.indexes[0]!.name;

/** DynamoDB's limit of items in one transaction. */
const TRANSACTION_ITEMS = 100;
/**
 * A batch is filled until its rows and the buckets their new times touch reach this; the rest of
 * the limit is room for the buckets of old versions learned on the way (past it, commit halves).
 */
const PACKED_ITEMS = 80;
/** And until its rows' size nears a quarter below the 4 MB a transaction may carry (a row may be up to 400 KB). */
const PACKED_BYTES = 3_000_000;
const MAX_ATTEMPTS = 12;
/** Attempts of a batch before it is halved because others keep changing its rows. */
const CONTENDED_ATTEMPTS = 3;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A row to write (`next`) or to remove (no `next`). */
interface Change {
  id: string;
  next?: ShapedRow;
}

/** What a row is expected to be when the transaction runs: absent, or the version at this Datetime. */
type Expected = { exists: false } | { exists: true; datetimeMs: number };

function currentVersion(item: Record<string, AttributeValue> | undefined): Expected {
  const datetime = item?.datetimeMs?.N;
  return datetime === undefined ? { exists: false } : { exists: true, datetimeMs: Number(datetime) };
}

export function createReportingRowsStore(client: DynamoDBDocumentClient, tables: ReportingTables): ReportingRowsStore {
  /** The count changes of a batch, per bucket, without the ones that cancel out. */
  function countDeltas(changes: readonly Change[], expected: ReadonlyMap<string, Expected>): Map<string, number> {
    const deltas = new Map<string, number>();
    const move = (datetimeMs: number, by: number) => {
      for (const { level, start } of bucketsOf(datetimeMs)) {
        const key = countKey(level, start);
        deltas.set(key, (deltas.get(key) ?? 0) + by);
      }
    };
    for (const change of changes) {
      const before = expected.get(change.id)!;
      if (before.exists) move(before.datetimeMs, -1);
      if (change.next) move(change.next.datetimeMs, +1);
    }
    for (const [key, delta] of deltas) if (delta === 0) deltas.delete(key);
    return deltas;
  }

  function rowItem(tenantId: string, kind: ReportKind, change: Change, before: Expected): TransactItem {
    const Key = { pk: rowKey(tenantId, kind, change.id) };
    const condition = before.exists
      ? { ConditionExpression: 'datetimeMs = :was', ExpressionAttributeValues: { ':was': before.datetimeMs } }
      : { ConditionExpression: 'attribute_not_exists(pk)' };
    const common = { TableName: tables.rows, ...condition, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
    if (change.next) return { Put: { ...common, Item: reportingItem(tenantId, kind, change.next) } };
    // Removing a row believed absent: only check that it is, so a present one reports its version.
    return before.exists ? { Delete: { ...common, Key } } : { ConditionCheck: { ...common, Key } };
  }

  /** Commits one batch (ids distinct) with its counts, learning rows' versions until it holds. */
  async function commit(tenantId: string, kind: ReportKind, changes: Change[]): Promise<void> {
    const expected = new Map<string, Expected>(changes.map((change) => [change.id, { exists: false }]));
    for (let attempt = 0; ; attempt++) {
      const deltas = countDeltas(changes, expected);
      // Rows spread over many hours move too many buckets for one transaction, or other writers
      // keep changing rows of this batch under it (concurrent imports of the same rows): halve
      // the batch; smaller transactions meet fewer of the others' rows.
      if (changes.length > 1 && (changes.length + deltas.size > TRANSACTION_ITEMS || attempt >= CONTENDED_ATTEMPTS)) {
        const half = Math.ceil(changes.length / 2);
        await commit(tenantId, kind, changes.slice(0, half));
        return commit(tenantId, kind, changes.slice(half));
      }
      const TransactItems: TransactItem[] = [
        ...changes.map((change) => rowItem(tenantId, kind, change, expected.get(change.id)!)),
        ...[...deltas].map(([sk, delta]) => ({
          Update: {
            TableName: tables.counts,
            Key: { pk: listKey(tenantId, kind), sk },
            UpdateExpression: 'ADD #rows :delta',
            ExpressionAttributeNames: { '#rows': 'rows' },
            ExpressionAttributeValues: { ':delta': delta },
          },
        })),
      ];
      try {
        await client.send(new TransactWriteCommand({ TransactItems }));
        return;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        let learned = false;
        changes.forEach((change, index) => {
          const reason = reasons[index];
          if (reason?.Code !== 'ConditionalCheckFailed') return;
          expected.set(change.id, currentVersion(reason.Item));
          learned = true;
        });
        // Neither a row that changed nor a busy item: a refusal that no retry passes.
        if (!learned && !busyReason(reasons.map((reason) => reason.Code))) throw error;
        if (attempt + 1 >= MAX_ATTEMPTS)
          throw new Error(`reporting rows of ${tenantId}/${kind} kept conflicting after ${MAX_ATTEMPTS} attempts`, {
            cause: error,
          });
        // A row's version was learned: the next attempt can pass at once, unless other writers
        // keep changing the same rows (then back off too, so one of them gets through). Busy: wait.
        if (!learned || attempt >= 2) await backoff(attempt, COUNT_BUCKETS);
      }
    }
  }

  /** The items of a Query (given a key condition) or else a Scan, a page at a time. */
  async function* pages(input: QueryCommandInput | ScanCommandInput): AsyncGenerator<Array<Record<string, unknown>>> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page =
        'KeyConditionExpression' in input
          ? await client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }))
          : await client.send(new ScanCommand({ ...input, ExclusiveStartKey: startKey }));
      yield page.Items ?? [];
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  /**
   * In batches, each id once (the last change of an id wins, as if applied in order), in time
   * order, so rows of the same hours share their buckets: as many rows as fit go in a transaction
   * (DynamoDB Local takes about one transaction in the time of one, whatever its size).
   */
  async function apply(tenantId: string, kind: ReportKind, changes: Change[]): Promise<void> {
    const last = new Map(changes.map((change) => [change.id, change]));
    const distinct = [...last.values()].sort((a, b) => (a.next?.datetimeMs ?? 0) - (b.next?.datetimeMs ?? 0));
    let batch: Change[] = [];
    let bytes = 0;
    const buckets = new Set<string>();
    for (const change of distinct) {
      const touched = change.next
        ? bucketsOf(change.next.datetimeMs).map(({ level, start }) => countKey(level, start))
        : [];
      const added = touched.filter((key) => !buckets.has(key)).length;
      // The row's JSON and its keys, with room for the attribute names.
      const size = change.next
        ? Buffer.byteLength(JSON.stringify(change.next.row)) + 3 * Buffer.byteLength(change.id) + 256
        : 0;
      if (batch.length > 0 && (batch.length + 1 + buckets.size + added > PACKED_ITEMS || bytes + size > PACKED_BYTES)) {
        await commit(tenantId, kind, batch);
        batch = [];
        bytes = 0;
        buckets.clear();
      }
      batch.push(change);
      bytes += size;
      for (const key of touched) buckets.add(key);
    }
    if (batch.length > 0) await commit(tenantId, kind, batch);
  }

  return {
    putRows: (tenantId, kind, rows) =>
      apply(
        tenantId,
        kind,
        rows.map((row) => ({ id: row.id, next: row })),
      ),
    deleteRows: (tenantId, kind, ids) =>
      apply(
        tenantId,
        kind,
        ids.map((id) => ({ id })),
      ),

    async rebuildCounts({ tenantId, onProgress } = {}) {
      // One tenant: its lists through the window index and its count items. Every tenant: both tables whole.
      const lists = tenantId === undefined ? undefined : REPORT_KINDS.map((kind) => listKey(tenantId, kind));
      const rowPages = lists
        ? lists.map((gpk) =>
            pages({
              TableName: tables.rows,
              IndexName: WINDOW_INDEX,
              KeyConditionExpression: 'gpk = :gpk',
              ExpressionAttributeValues: { ':gpk': gpk },
            }),
          )
        : [pages({ TableName: tables.rows, ConsistentRead: true })];
      const counts = new Map<string, Map<string, number>>();
      let rows = 0;
      for (const source of rowPages) {
        for await (const items of source) {
          for (const item of items) {
            if (typeof item.gpk !== 'string' || typeof item.datetimeMs !== 'number') continue;
            const list = counts.get(item.gpk) ?? new Map<string, number>();
            counts.set(item.gpk, list);
            for (const { level, start } of bucketsOf(item.datetimeMs))
              list.set(countKey(level, start), (list.get(countKey(level, start)) ?? 0) + 1);
            rows++;
          }
          onProgress?.(rows);
        }
      }
      // Buckets whose rows are all gone since are set to zero; then every counted bucket is set.
      const countPages = lists
        ? lists.map((pk) =>
            pages({
              TableName: tables.counts,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': pk },
            }),
          )
        : [pages({ TableName: tables.counts })];
      const stale: Array<{ pk: string; sk: string }> = [];
      for (const source of countPages) {
        for await (const items of source) {
          for (const { pk, sk } of items as Array<{ pk: string; sk: string }>)
            if (!counts.get(pk)?.has(sk)) stale.push({ pk, sk });
        }
      }
      const writes = [
        ...stale.map(({ pk, sk }) => ({ pk, sk, rows: 0 })),
        ...[...counts].flatMap(([pk, list]) => [...list].map(([sk, n]) => ({ pk, sk, rows: n }))),
      ];
      for (let i = 0; i < writes.length; i += 25) {
        await client.send(
          new TransactWriteCommand({
            TransactItems: writes.slice(i, i + 25).map((Item) => ({ Put: { TableName: tables.counts, Item } })),
          }),
        );
      }
      return { lists: counts.size, rows };
    },
  };
}
