/**
 * Provisioning documents: pk `<tenant>#<collection>`, sk `<docId>`, the document as JSON text
 * (`data`, so any JSON object round-trips exactly), a `version` that guards every
 * read-modify-write and an `etag` drawn afresh by every write. A replace is one atomic
 * update; a change computed from the current document (a merge) is written only if the version is
 * still the one it was computed from. Preconditions (If-Match, If-None-Match) are conditions of the
 * write itself. With an idempotency claim the write and its record commit in one transaction.
 */
import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isStorableDocId } from '#shared/domain/documents/document-id';
import { newEntityTag, type Preconditions, preconditionsHold } from '#shared/domain/documents/entity-tags';
import type { JsonObject } from '#shared/domain/documents/json-value';
import type { IdempotencyRecord } from '#shared/domain/idempotency/recorded-response';
import { busyReason } from './busy-cancellation.ts';
import { tenantKey } from './composite-key.ts';
import { type RecordRequest, recordLookupOnce } from './idempotency-ledger.ts';
import { allOf, etagOf, preconditionExpression } from './precondition-expression.ts';
import type { StopSignal } from './stop-signal.ts';
import { StoreUnavailableError } from './store-unavailable-error.ts';

const MAX_UPDATE_ATTEMPTS = 40;
/** A keyed replace learns at most once that the document's existence differs from its guess, plus conflicts. */
const MAX_REPLACE_ATTEMPTS = 8;

export interface DocumentEntry {
  id: string;
  /** The document as stored: compact JSON text. */
  json: string;
}

export interface StoredDocument {
  json: string;
  /** The opaque entity tag of this version (without quotes). */
  etag: string;
}

export interface DocumentPage {
  entries: DocumentEntry[];
  /** True when documents after the last entry remain. */
  more: boolean;
}

/** What a write did: wrote, refused on a precondition, or found its idempotency key recorded. */
export type WriteOutcome<Written> =
  | ({ kind: 'written' } & Written)
  | { kind: 'precondition-failed' }
  | { kind: 'recorded'; record: IdempotencyRecord };

export interface Replaced {
  created: boolean;
  etag: string;
}

export interface Merged {
  json: string;
  etag: string;
}

export interface WriteOptions<Written> {
  /** Aborted at the deadline: nothing commits afterwards. */
  signal?: StopSignal;
  preconditions?: Preconditions;
  /** Records the response under an idempotency key, in the write's own transaction. */
  record?: RecordRequest<Written>;
  /**
   * Whether the write is a change the tenant's webhooks hear of (`change` on the item, which the
   * fan-out's stream filter reads): every API write; not an operator's import.
   */
  announce?: boolean;
}

export interface DocumentsStore {
  /**
   * Up to `limit` documents after `after` in id order, stopping early once the entries would pass
   * `maxBytes` measured as they travel in a Lambda response: the body is a JSON string there,
   * so every quote and backslash of a document counts twice.
   */
  list(
    tenantId: string,
    collection: string,
    page: { limit: number; after?: string; maxBytes: number },
  ): Promise<DocumentPage>;
  /** The document and its entity tag, or undefined. */
  read(tenantId: string, collection: string, docId: string): Promise<StoredDocument | undefined>;
  /** Stores `json` as the document, created or replaced. */
  replace(
    tenantId: string,
    collection: string,
    docId: string,
    json: string,
    options?: WriteOptions<Replaced>,
  ): Promise<WriteOutcome<Replaced>>;
  /**
   * Replaces the document by `change(current)` (JSON text) unless another write came between,
   * in which case it computes again from that write's result. `absent` when there is no document.
   */
  update(
    tenantId: string,
    collection: string,
    docId: string,
    change: (current: JsonObject) => string,
    options?: WriteOptions<Merged>,
  ): Promise<WriteOutcome<Merged> | { kind: 'absent' }>;
}

/** An update as a transaction takes it; the single-item command takes it too. */
type UpdateCommandInput = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Update']>;

/** An update's condition joined with a precondition's, attribute names and values merged. */
function withPrecondition(
  update: UpdateCommandInput,
  preconditions: Preconditions,
  extra?: string,
): UpdateCommandInput {
  const precondition = preconditionExpression(preconditions);
  const condition = allOf(
    [extra, update.ConditionExpression, ...(precondition?.terms ?? [])].filter(
      (term): term is string => term !== undefined,
    ),
  );
  return {
    ...update,
    ...(condition !== undefined && { ConditionExpression: condition }),
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...precondition?.names },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...precondition?.values },
  };
}

/** Why a write did not commit, when it is an answer rather than a fault. */
type Refusal =
  /** The idempotency key records a committed write already. */
  | { kind: 'held'; record: IdempotencyRecord }
  /** The write's condition failed; the item as it is (ALL_OLD), undefined when absent. */
  | { kind: 'refused'; item: Record<string, unknown> | undefined }
  /** Busy: try again. `conflict` when another transaction held an item of this one. */
  | { kind: 'busy'; conflict: boolean };

/** Reads a failed write; throws what is a fault. A plain write meeting an item inside a transaction is busy too. */
function refusalOf(error: unknown, ledger?: RecordRequest<unknown>['ledger']): Refusal {
  if (error instanceof ConditionalCheckFailedException)
    return { kind: 'refused', item: error.Item && unmarshall(error.Item) };
  // DynamoDB refuses a single-item write to an item in an ongoing transaction; the SDK does not retry it.
  if (error instanceof TransactionConflictException) return { kind: 'busy', conflict: true };
  if (error instanceof TransactionCanceledException) {
    const [write, claim] = error.CancellationReasons ?? [];
    const held = ledger?.heldBy(claim);
    if (held) return { kind: 'held', record: held };
    if (write?.Code === 'ConditionalCheckFailed')
      return { kind: 'refused', item: write.Item && unmarshall(write.Item) };
    const busy = busyReason([write?.Code, claim?.Code]);
    if (busy) return { kind: 'busy', ...busy };
  }
  throw error;
}

const abandoned = (what: string, cause?: unknown) =>
  new StoreUnavailableError(`${what} abandoned at the deadline`, { cause });

const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** attempt)));

export function createDocumentsStore(client: DynamoDBDocumentClient, table: string): DocumentsStore {
  const key = (tenantId: string, collection: string, docId: string) => {
    const pk = tenantKey(tenantId, collection);
    return pk !== undefined && isStorableDocId(docId) ? { pk, sk: docId } : undefined;
  };
  const read = async (tenantId: string, collection: string, docId: string): Promise<StoredDocument | undefined> => {
    const k = key(tenantId, collection, docId);
    if (!k) return undefined;
    const { Item } = await client.send(new GetCommand({ TableName: table, Key: k, ConsistentRead: true }));
    return Item ? { json: String(Item.data), etag: etagOf(Item) } : undefined;
  };

  return {
    async list(tenantId, collection, { limit, after, maxBytes }) {
      const pk = tenantKey(tenantId, collection);
      if (pk === undefined) return { entries: [], more: false };
      const entries: DocumentEntry[] = [];
      let bytes = 0;
      let startKey: Record<string, unknown> | undefined =
        after !== undefined && isStorableDocId(after) ? { pk, sk: after } : undefined;
      for (;;) {
        const page = await client.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
            ProjectionExpression: 'sk, #data',
            ExpressionAttributeNames: { '#data': 'data' },
            ExclusiveStartKey: startKey,
            // One more than asked, to know whether more remain without another round trip.
            Limit: limit + 1 - entries.length,
          }),
        );
        for (const item of page.Items ?? []) {
          const entry = { id: String(item.sk), json: String(item.data) };
          const size = Buffer.byteLength(JSON.stringify(entry.json)) + Buffer.byteLength(JSON.stringify(entry.id));
          // A page always holds one entry, and never passes the byte budget after that.
          if (entries.length === limit || (entries.length > 0 && bytes + size > maxBytes))
            return { entries, more: true };
          entries.push(entry);
          bytes += size;
        }
        startKey = page.LastEvaluatedKey;
        if (!startKey) return { entries, more: false };
      }
    },

    read,

    async replace(tenantId, collection, docId, json, { signal, preconditions = {}, record, announce = true } = {}) {
      const k = key(tenantId, collection, docId);
      if (!k) throw new RangeError('document key too long to store');
      const etag = newEntityTag();
      const update: UpdateCommandInput = {
        TableName: table,
        Key: k,
        UpdateExpression: `SET #data = :data, #version = if_not_exists(#version, :zero) + :one, #etag = :etag, updatedAt = :now, tenantId = :tenant, #collection = :collection${announce ? ', #change = :replaced' : ' REMOVE #change'}`,
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
          ':etag': etag,
          ':now': new Date().toISOString(),
          ':tenant': tenantId,
          ':collection': collection,
          ...(announce && { ':replaced': 'replaced' }),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      };

      if (!record) {
        for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
          if (signal?.aborted) throw abandoned(`replace of ${docId}`);
          try {
            const { Attributes } = await client.send(
              // Only attributes that existed come back: none means the document is new.
              new UpdateCommand({ ...withPrecondition(update, preconditions), ReturnValues: 'UPDATED_OLD' }),
              // At the deadline the SDK stops as well: none of its retries commits after the 504.
              { abortSignal: signal },
            );
            // An SDK retry of a write whose answer was lost finds that write's own tag: its old
            // image is the first attempt's result, which created the document if it is version 1.
            const created =
              Attributes?.etag === etag ? Number(Attributes.version) === 1 : Attributes?.version === undefined;
            return { kind: 'written', created, etag };
          } catch (error) {
            if (signal?.aborted) throw abandoned(`replace of ${docId}`, error);
            const refusal = refusalOf(error);
            if (refusal.kind === 'busy') {
              await backoff(attempt);
              continue;
            }
            // The SDK retried a write whose answer was lost, and the retry met the write itself.
            if (refusal.kind === 'refused' && refusal.item?.etag === etag)
              return { kind: 'written', created: Number(refusal.item.version) === 1, etag };
            return { kind: 'precondition-failed' };
          }
        }
        throw new StoreUnavailableError(`replace of ${docId} kept conflicting after ${MAX_REPLACE_ATTEMPTS} attempts`);
      }

      // The recorded answer (201 or 200) must be known before the commit: the write states whether
      // the document exists, and learns from a refusal when the guess was wrong. Documents are
      // never deleted, so the guess is corrected at most once, and If-None-Match: * knows already.
      let exists = preconditions.ifNoneMatch !== '*';
      const concurrentRecord = recordLookupOnce(tenantId, record, signal);
      for (let attempt = 0; attempt < MAX_REPLACE_ATTEMPTS; attempt++) {
        if (signal?.aborted) throw abandoned(`replace of ${docId}`);
        const created = !exists;
        try {
          await client.send(
            new TransactWriteCommand({
              // The SDK retries a call whose answer was lost; the token makes that retry a no-op.
              ClientRequestToken: `${etag}.${attempt}`,
              TransactItems: [
                {
                  Update: withPrecondition(
                    update,
                    preconditions,
                    exists ? 'attribute_exists(pk)' : 'attribute_not_exists(pk)',
                  ),
                },
                record.ledger.recordItem(tenantId, record.claim, record.response({ created, etag }), Date.now()),
              ],
            }),
            { abortSignal: signal },
          );
          return { kind: 'written', created, etag };
        } catch (error) {
          if (signal?.aborted) throw abandoned(`replace of ${docId}`, error);
          const refusal = refusalOf(error, record.ledger);
          if (refusal.kind === 'held') return { kind: 'recorded', record: refusal.record };
          if (refusal.kind === 'refused') {
            const current = refusal.item;
            if (!preconditionsHold(current && etagOf(current), preconditions)) return { kind: 'precondition-failed' };
            // Only the existence guess can be wrong once the preconditions hold; a condition that
            // held in code yet failed in DynamoDB is refused, never retried without end.
            if ((current !== undefined) === exists) return { kind: 'precondition-failed' };
            exists = current !== undefined;
            continue;
          }
          const found = refusal.conflict ? await concurrentRecord() : undefined;
          if (found) return { kind: 'recorded', record: found };
          await backoff(attempt);
        }
      }
      throw new StoreUnavailableError(`replace of ${docId} kept conflicting after ${MAX_REPLACE_ATTEMPTS} attempts`);
    },

    async update(tenantId, collection, docId, change, { signal, preconditions = {}, record } = {}) {
      const k = key(tenantId, collection, docId);
      const { Item } = k
        ? await client.send(new GetCommand({ TableName: table, Key: k, ConsistentRead: true }), { abortSignal: signal })
        : { Item: undefined };
      let current = Item;
      const concurrentRecord = recordLookupOnce(tenantId, record, signal);
      for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
        if (!current) {
          // A committed merge leaves its document behind (documents are never deleted), so a key
          // recorded for another request is the only record to look for: one read, keyed only.
          const held = record && (await record.ledger.find(tenantId, record.claim.key, signal));
          if (held) return { kind: 'recorded', record: held };
          return preconditions.ifMatch !== undefined ? { kind: 'precondition-failed' } : { kind: 'absent' };
        }
        if (signal?.aborted) throw abandoned(`update of ${docId}`);
        // Without a key nothing else can decide the answer: a failed precondition needs no write.
        if (!record && !preconditionsHold(etagOf(current), preconditions)) return { kind: 'precondition-failed' };
        const version = Number(current.version);
        const json = change(JSON.parse(String(current.data)) as JsonObject);
        const etag = newEntityTag();
        const update = withPrecondition(
          {
            TableName: table,
            Key: k,
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
            // A lost race hands back the winner's document: no second read to retry from it.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
          preconditions,
        );
        try {
          if (record) {
            await client.send(
              new TransactWriteCommand({
                ClientRequestToken: `${etag}.${attempt}`,
                TransactItems: [
                  { Update: update },
                  record.ledger.recordItem(tenantId, record.claim, record.response({ json, etag }), Date.now()),
                ],
              }),
              { abortSignal: signal },
            );
          } else {
            // At the deadline the SDK stops as well: none of its retries commits after the 504.
            await client.send(new UpdateCommand(update), { abortSignal: signal });
          }
          return { kind: 'written', json, etag };
        } catch (error) {
          if (signal?.aborted) throw abandoned(`update of ${docId}`, error);
          const refusal = refusalOf(error, record?.ledger);
          if (refusal.kind === 'held') return { kind: 'recorded', record: refusal.record };
          if (refusal.kind === 'refused') {
            const refused = refusal.item;
            // The SDK retried a write whose answer was lost, and the retry met the write itself.
            if (refused?.etag === etag) return { kind: 'written', json, etag };
            if (refused && !preconditionsHold(etagOf(refused), preconditions)) return { kind: 'precondition-failed' };
            // A moved version is a lost race: compute again from the winner's document. The same
            // version refused while the preconditions hold in code is a refusal, not a race.
            if (refused && Number(refused.version) === version) return { kind: 'precondition-failed' };
            current = refused;
          } else {
            const found = refusal.conflict && record ? await concurrentRecord() : undefined;
            if (found) return { kind: 'recorded', record: found };
          }
          await backoff(attempt);
        }
      }
      throw new StoreUnavailableError(`update of ${docId} kept conflicting after ${MAX_UPDATE_ATTEMPTS} attempts`);
    },
  };
}
