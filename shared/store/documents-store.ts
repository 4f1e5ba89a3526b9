/**
 * Provisioning documents: pk `<tenant>#<collection>`, sk `<docId>`, the document as JSON text
 * (`data`, so any JSON object round-trips exactly), its `version` number and an `etag` drawn
 * afresh by every write. Every write (a replace, a merge) is computed from the document as read and
 * commits, in one transaction, the document on condition that its version is still the one read,
 * the new version in the versions table (pk `<tenant>#<collection>#<docId>`, sk its number), the
 * removal of the version the retention pushes out, and the idempotency record when there is one.
 * Preconditions (If-Match, If-None-Match) are conditions of the write itself.
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
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isStorableDocId } from '#shared/domain/documents/document-id';
import {
  type VersionChange,
  type VersionRetention,
  versionPrunedBy,
  versionStanding,
} from '#shared/domain/documents/document-versions';
import { newEntityTag, type Preconditions, preconditionsHold } from '#shared/domain/documents/entity-tags';
import type { JsonObject } from '#shared/domain/documents/json-value';
import type { IdempotencyRecord } from '#shared/domain/idempotency/recorded-response';
import { tenantKey } from './composite-key.ts';
import { type RecordRequest, recordLookupOnce } from './idempotency-ledger.ts';
import { allOf, etagOf, preconditionExpression } from './precondition-expression.ts';
import type { StopSignal } from './stop-signal.ts';
import { StoreUnavailableError } from './store-unavailable-error.ts';
import { VERSION_ENTRIES_INDEX } from './table-specs.ts';
import { backoff, busyReason, HOT_DOCUMENT } from './write-retry.ts';

/** Writes lost to other writes of the same document before a write gives up (30 merges at once win in turn). */
const MAX_WRITE_ATTEMPTS = 40;

/** An item as DynamoDB answers it. */
type Item = Record<string, unknown>;

/** What a write makes: the document's next version and how it came to be. */
interface VersionWrite {
  json: string;
  change: VersionChange;
}

/** What a committed write is, before the method says it its own way. */
interface DocumentWritten {
  created: boolean;
  json: string;
  etag: string;
  version: number;
}

export interface DocumentEntry {
  id: string;
  /** The document as stored: compact JSON text. */
  json: string;
}

export interface StoredDocument {
  json: string;
  /** The opaque entity tag of this version (without quotes). */
  etag: string;
  /** The number of this version (versions/{n}). */
  version: number;
}

/** One version of a document as its history lists it: all but the document. */
export interface VersionEntry {
  number: number;
  etag: string;
  createdAt: string;
  change: VersionChange;
  /** The id of the key that made it; absent for an operator's import and for history kept before keys were. */
  keyId?: string;
  /** The document's size, in bytes of UTF-8. */
  bytes: number;
}

/** One version of a document, as its history keeps it. */
export interface StoredVersion extends VersionEntry {
  json: string;
}

/**
 * What a version number names: a version, one the retention removed, or none yet (`newest` is the
 * document's current version; absent when there is no document).
 */
export type VersionRead =
  | { kind: 'found'; version: StoredVersion }
  | { kind: 'gone'; retention: VersionRetention }
  | { kind: 'not-yet'; newest?: number };

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
  version: number;
}

export interface Merged {
  json: string;
  etag: string;
  version: number;
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
  /** The id of the key that asked for the write, kept with the version. */
  by?: string;
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
  /**
   * Makes version `n` the document's new current version (a new number, change `restored`);
   * `not-found` with what version `n` is when there is no such version to restore.
   */
  restore(
    tenantId: string,
    collection: string,
    docId: string,
    n: number,
    options?: WriteOptions<Merged>,
  ): Promise<WriteOutcome<Merged> | { kind: 'not-found'; read: Exclude<VersionRead, { kind: 'found' }> }>;
  /** Version `n` of the document, or why there is none; `signal` stops it at the deadline. */
  readVersion(
    tenantId: string,
    collection: string,
    docId: string,
    n: number,
    signal?: StopSignal,
  ): Promise<VersionRead>;
  /**
   * The document's versions kept, newest first, at most `limit`, those numbered below `before`;
   * undefined when there is no document. Read from an index, which may lag the writes by a moment
   * (the current version is always there: it is read from the document).
   */
  listVersions(
    tenantId: string,
    collection: string,
    docId: string,
    page: { limit: number; before?: number },
  ): Promise<{ versions: VersionEntry[]; more: boolean } | undefined>;
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

/**
 * Reads a failed write; throws what is a fault. A plain write meeting an item inside a transaction
 * is busy too. In a transaction the document's own update is the first item and the idempotency
 * record, when there is one, the last.
 */
function refusalOf(error: unknown, ledger?: RecordRequest<unknown>['ledger']): Refusal {
  if (error instanceof ConditionalCheckFailedException)
    return { kind: 'refused', item: error.Item && unmarshall(error.Item) };
  // DynamoDB refuses a single-item write to an item in an ongoing transaction; the SDK does not retry it.
  if (error instanceof TransactionConflictException) return { kind: 'busy', conflict: true };
  if (error instanceof TransactionCanceledException) {
    const reasons = error.CancellationReasons ?? [];
    const [write] = reasons;
    const claim = ledger ? reasons.at(-1) : undefined;
    const held = ledger?.heldBy(claim);
    if (held) return { kind: 'held', record: held };
    if (write?.Code === 'ConditionalCheckFailed')
      return { kind: 'refused', item: write.Item && unmarshall(write.Item) };
    const busy = busyReason(reasons.map((reason) => reason.Code));
    if (busy) return { kind: 'busy', ...busy };
  }
  throw error;
}

const abandoned = (what: string, cause?: unknown) =>
  new StoreUnavailableError(`${what} abandoned at the deadline`, { cause });

/** Where a write goes and what it writes, besides the document's key. */
interface WriteContext {
  table: string;
  tenantId: string;
  collection: string;
  announce: boolean;
  nowMs: number;
}

/** The document's update of a write: its new version, on condition that it is still the one read. */
function documentUpdate(
  k: { pk: string; sk: string },
  current: Item | undefined,
  written: DocumentWritten,
  change: VersionChange,
  context: WriteContext,
): UpdateCommandInput {
  const { announce } = context;
  return {
    TableName: context.table,
    Key: k,
    UpdateExpression: `SET #data = :data, #version = :next, #etag = :etag, updatedAt = :now, tenantId = :tenant, #collection = :collection, versioned = :true${announce ? ', #change = :change' : ' REMOVE #change'}`,
    ConditionExpression: current ? '#version = :seen' : 'attribute_not_exists(pk)',
    ExpressionAttributeNames: {
      '#data': 'data',
      '#version': 'version',
      '#etag': 'etag',
      '#collection': 'collection',
      '#change': 'change',
    },
    ExpressionAttributeValues: {
      ':data': written.json,
      ':next': written.version,
      ':etag': written.etag,
      ':now': new Date(context.nowMs).toISOString(),
      ':tenant': context.tenantId,
      ':collection': context.collection,
      ':true': true,
      ...(current && { ':seen': Number(current.version) }),
      // What the webhooks' event says (the fan-out's stream filter reads it); a first version is
      // `replaced` at version 1, as the documents written before versions were kept it.
      ...(announce && { ':change': change === 'created' ? 'replaced' : change }),
    },
    // A lost race hands back the winner's document: no second read to compute again from it.
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** The TTL of a version made at `createdMs`: the retention's age after it. */
const expiresAtOf = (createdMs: number, retention: VersionRetention) =>
  Math.ceil((createdMs + retention.maxAgeMs) / 1000);

/** A version's item: the document as written, how and by whom, until the retention's age. */
function versionItem(
  pk: string,
  written: Pick<DocumentWritten, 'json' | 'etag' | 'version'>,
  change: VersionChange,
  createdMs: number,
  retention: VersionRetention,
  by: string | undefined,
): Item {
  return {
    pk,
    sk: written.version,
    data: written.json,
    etag: written.etag,
    createdAt: new Date(createdMs).toISOString(),
    change,
    bytes: Buffer.byteLength(written.json, 'utf8'),
    expiresAt: expiresAtOf(createdMs, retention),
    ...(by !== undefined && { keyId: by }),
  };
}

/**
 * The present state of a document kept before versions were, as its first version kept: made when
 * it was last written, and kept the retention's age from now, since the write that supersedes it
 * is the first moment its history exists (a year-old configuration can still be put back).
 */
function presentAsVersion(pk: string, current: Item, nowMs: number, retention: VersionRetention): Item {
  const number = Number(current.version);
  const madeMs = typeof current.updatedAt === 'string' ? Date.parse(current.updatedAt) : nowMs;
  return {
    ...versionItem(
      pk,
      { json: String(current.data), etag: etagOf(current), version: number },
      number === 1 ? 'created' : current.change === 'merged' ? 'merged' : 'replaced',
      Number.isNaN(madeMs) ? nowMs : madeMs,
      retention,
      undefined,
    ),
    expiresAt: expiresAtOf(nowMs, retention),
  };
}

/** What a merge or a restore answers: the document written, its ETag and number. */
const merged = ({ json, etag, version }: DocumentWritten): Merged => ({ json, etag, version });

const CHANGES: readonly VersionChange[] = ['created', 'replaced', 'merged', 'restored'];

/** A version item, or its entry in the index, as the list names it. */
function toEntry(item: Item): VersionEntry {
  const change = CHANGES.find((known) => known === item.change) ?? 'replaced';
  return {
    number: Number(item.sk),
    etag: String(item.etag),
    createdAt: String(item.createdAt),
    change,
    bytes: Number(item.bytes ?? Buffer.byteLength(String(item.data), 'utf8')),
    ...(typeof item.keyId === 'string' && { keyId: item.keyId }),
  };
}

const toVersion = (item: Item): StoredVersion => ({ ...toEntry(item), json: String(item.data) });

/** The document itself as its current version's item, for one whose version item is not there. */
function currentAsVersion(current: Item): Item {
  const number = Number(current.version);
  return {
    sk: number,
    data: current.data,
    etag: etagOf(current),
    createdAt: current.updatedAt ?? new Date(0).toISOString(),
    change: number === 1 ? 'created' : current.change,
  };
}

/**
 * Whether an item (or its entry in the index) is a version still kept: not past its age (TTL
 * deletes within days, not at once), and not the stub a prune leaves where the version was gone
 * already (a key and an expiry alone).
 */
const isVersion = (item: Item) =>
  typeof item.etag === 'string' && !(typeof item.expiresAt === 'number' && item.expiresAt * 1000 <= Date.now());

/**
 * The documents of `tables.documents` and their versions in `tables.versions`, keeping `retention`.
 *
 * @example const documents = createDocumentsStore(client, { documents, versions }, DEFAULT_VERSION_RETENTION);
 */
export function createDocumentsStore(
  client: DynamoDBDocumentClient,
  tables: { documents: string; versions: string | (() => string) },
  retention: VersionRetention,
): DocumentsStore {
  const table = tables.documents;
  // Named when first used: a function that only reads current documents is given no versions table.
  const versionsTable = () => (typeof tables.versions === 'string' ? tables.versions : tables.versions());
  const key = (tenantId: string, collection: string, docId: string) => {
    const pk = tenantKey(tenantId, collection);
    return pk !== undefined && isStorableDocId(docId) ? { pk, sk: docId } : undefined;
  };
  const read = async (tenantId: string, collection: string, docId: string): Promise<StoredDocument | undefined> => {
    const k = key(tenantId, collection, docId);
    if (!k) return undefined;
    const { Item } = await client.send(new GetCommand({ TableName: table, Key: k, ConsistentRead: true }));
    return Item ? { json: String(Item.data), etag: etagOf(Item), version: Number(Item.version) } : undefined;
  };

  const versionsKey = (tenantId: string, collection: string, docId: string) =>
    isStorableDocId(docId) ? tenantKey(tenantId, collection, docId) : undefined;
  const getItem = async (k: { pk: string; sk: string }, signal?: StopSignal): Promise<Item | undefined> =>
    (await client.send(new GetCommand({ TableName: table, Key: k, ConsistentRead: true }), { abortSignal: signal }))
      .Item;

  /**
   * Writes the document `compute` makes of the one stored (undefined: none) as its next version:
   * the document and the version in one transaction, on condition that the document is still the
   * one computed from, with the version the retention prunes and the idempotency record. A lost
   * race computes again from the winner's document, which the refusal hands back. `read` is the
   * document when the caller read it already.
   */
  async function write<Written>(
    tenantId: string,
    collection: string,
    docId: string,
    compute: (current: Item | undefined) => VersionWrite | 'absent',
    toWritten: (written: DocumentWritten) => Written,
    { signal, preconditions = {}, record, announce = true, by }: WriteOptions<Written>,
    read?: Item,
  ): Promise<WriteOutcome<Written> | { kind: 'absent' }> {
    const k = key(tenantId, collection, docId);
    const vk = versionsKey(tenantId, collection, docId);
    // A key too long to store names no document: a merge finds none, a replace cannot make one.
    if ((!k || !vk) && compute(undefined) !== 'absent') throw new RangeError('document key too long to store');
    // A lost race reads the winner's document from the refusal: a stale `read` costs one attempt.
    let current = read ?? (k ? await getItem(k, signal) : undefined);
    const concurrentRecord = recordLookupOnce(tenantId, record, signal);
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      if (signal?.aborted) throw abandoned(`write of ${docId}`);
      const next = compute(current);
      if (next === 'absent' || !k || !vk) {
        // A document is never deleted, so a key recorded for another request is the only record to look for.
        const held = record && (await record.ledger.find(tenantId, record.claim.key, signal));
        if (held) return { kind: 'recorded', record: held };
        return preconditions.ifMatch !== undefined ? { kind: 'precondition-failed' } : { kind: 'absent' };
      }
      // Without a key nothing else can decide the answer: a failed precondition needs no write.
      if (!record && !preconditionsHold(current && etagOf(current), preconditions))
        return { kind: 'precondition-failed' };
      const seen = current ? Number(current.version) : 0;
      const written: DocumentWritten = { created: !current, json: next.json, etag: newEntityTag(), version: seen + 1 };
      const nowMs = Date.now();
      const pruned = versionPrunedBy(written.version, retention);
      const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
        {
          Update: withPrecondition(
            documentUpdate(k, current, written, next.change, { table, tenantId, collection, announce, nowMs }),
            preconditions,
          ),
        },
        { Put: { TableName: versionsTable(), Item: versionItem(vk, written, next.change, nowMs, retention, by) } },
        // A document written before versions were kept starts its history at its present state
        // (unless this very write prunes it: one item may not be written twice in a transaction).
        ...(current && current.versioned !== true && pruned !== seen
          ? [{ Put: { TableName: versionsTable(), Item: presentAsVersion(vk, current, nowMs, retention) } }]
          : []),
        // Expired rather than deleted: no write route deletes (TTL removes it; reads see it gone at once).
        ...(pruned !== undefined
          ? [
              {
                Update: {
                  TableName: versionsTable(),
                  Key: { pk: vk, sk: pruned },
                  UpdateExpression: 'SET expiresAt = :now',
                  ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
                },
              },
            ]
          : []),
        ...(record
          ? [record.ledger.recordItem(tenantId, record.claim, record.response(toWritten(written)), nowMs)]
          : []),
      ];
      try {
        await client.send(
          // The SDK retries a call whose answer was lost; the token makes that retry a no-op.
          new TransactWriteCommand({ ClientRequestToken: `${written.etag}.${attempt}`, TransactItems: items }),
          // At the deadline the SDK stops as well: none of its retries commits after the 504.
          { abortSignal: signal },
        );
        return { kind: 'written', ...toWritten(written) };
      } catch (error) {
        if (signal?.aborted) throw abandoned(`write of ${docId}`, error);
        const refusal = refusalOf(error, record?.ledger);
        if (refusal.kind === 'held') return { kind: 'recorded', record: refusal.record };
        if (refusal.kind === 'refused') {
          const refused = refusal.item;
          // The SDK retried a write whose answer was lost, and the retry met the write itself.
          if (refused?.etag === written.etag) return { kind: 'written', ...toWritten(written) };
          if (!preconditionsHold(refused && etagOf(refused), preconditions)) return { kind: 'precondition-failed' };
          // Refused from the very state it was computed from while the preconditions hold in code:
          // a refusal, never retried without end.
          if ((refused ? Number(refused.version) : 0) === seen) return { kind: 'precondition-failed' };
          current = refused;
        } else {
          const found = refusal.conflict ? await concurrentRecord() : undefined;
          if (found) return { kind: 'recorded', record: found };
        }
        await backoff(attempt, HOT_DOCUMENT);
      }
    }
    throw new StoreUnavailableError(`write of ${docId} kept conflicting after ${MAX_WRITE_ATTEMPTS} attempts`);
  }

  /** Version `n` of the document, or why there is none, and the document as read to learn it. */
  async function versionOf(
    tenantId: string,
    collection: string,
    docId: string,
    n: number,
    signal?: StopSignal,
  ): Promise<{ read: VersionRead; current?: Item }> {
    const k = key(tenantId, collection, docId);
    const vk = versionsKey(tenantId, collection, docId);
    if (!k || !vk) return { read: { kind: 'not-yet' } };
    const current = await getItem(k, signal);
    const newest = current && Number(current.version);
    const standing = versionStanding(n, newest, retention);
    if (standing === 'not-yet') return { read: { kind: 'not-yet', ...(newest !== undefined && { newest }) }, current };
    if (standing === 'gone') return { read: { kind: 'gone', retention }, current };
    const { Item } = await client.send(
      new GetCommand({ TableName: versionsTable(), Key: { pk: vk, sk: n }, ConsistentRead: true }),
      { abortSignal: signal },
    );
    if (Item && isVersion(Item)) return { read: { kind: 'found', version: toVersion(Item) }, current };
    // The current version is the document itself, whatever became of its item (its age, or a
    // document written before versions were kept).
    const read: VersionRead =
      standing === 'current' && current
        ? { kind: 'found', version: toVersion(currentAsVersion(current)) }
        : { kind: 'gone', retention };
    return { read, current };
  }

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

    replace(tenantId, collection, docId, json, options = {}) {
      const change = (current: Item | undefined): VersionWrite => ({ json, change: current ? 'replaced' : 'created' });
      const replaced = ({ created, etag, version }: DocumentWritten): Replaced => ({ created, etag, version });
      return write(tenantId, collection, docId, change, replaced, options) as Promise<WriteOutcome<Replaced>>;
    },

    update(tenantId, collection, docId, change, options = {}) {
      const merge = (current: Item | undefined): VersionWrite | 'absent' =>
        current ? { json: change(JSON.parse(String(current.data)) as JsonObject), change: 'merged' } : 'absent';
      return write(tenantId, collection, docId, merge, merged, options);
    },

    async restore(tenantId, collection, docId, n, options = {}) {
      const { read: wanted, current } = await versionOf(tenantId, collection, docId, n, options.signal);
      if (wanted.kind !== 'found') {
        // A version gone since a keyed restore committed: the retry answers what the restore did.
        const { record, signal, preconditions = {} } = options;
        const held = record && (await record.ledger.find(tenantId, record.claim.key, signal));
        if (held) return { kind: 'recorded', record: held };
        const absent = wanted.kind === 'not-yet' && wanted.newest === undefined;
        if (absent && preconditions.ifMatch !== undefined) return { kind: 'precondition-failed' };
        return { kind: 'not-found', read: wanted };
      }
      // A version never changes: the document it held is the one restored, whatever came since.
      const restored = (current: Item | undefined): VersionWrite | 'absent' =>
        current ? { json: wanted.version.json, change: 'restored' } : 'absent';
      const outcome = await write(tenantId, collection, docId, restored, merged, options, current);
      return outcome.kind === 'absent' ? { kind: 'not-found', read: { kind: 'not-yet' } } : outcome;
    },

    async readVersion(tenantId, collection, docId, n, signal) {
      return (await versionOf(tenantId, collection, docId, n, signal)).read;
    },

    async listVersions(tenantId, collection, docId, { limit, before }) {
      const k = key(tenantId, collection, docId);
      const vk = versionsKey(tenantId, collection, docId);
      const current = k && (await getItem(k));
      if (!current || !vk) return undefined;
      const newest = Number(current.version);
      const below = Math.min(before ?? newest + 1, newest + 1);
      const floor = newest - retention.keep;
      // Nothing kept below `before` (a cursor the retention has passed): no query, whose range would be empty.
      if (below - 1 < floor + 1) return { versions: [], more: false };
      const versions: VersionEntry[] = [];
      let startKey: Record<string, unknown> | undefined;
      // The current version leads the first page even when it has no item of its own.
      let currentListed = below <= newest;
      for (;;) {
        const page = await client.send(
          new QueryCommand({
            TableName: versionsTable(),
            IndexName: VERSION_ENTRIES_INDEX,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :floor AND :below',
            FilterExpression: 'attribute_not_exists(expiresAt) OR expiresAt > :now',
            ExpressionAttributeValues: {
              ':pk': vk,
              ':floor': floor + 1,
              ':below': below - 1,
              ':now': Math.floor(Date.now() / 1000),
            },
            ScanIndexForward: false,
            ExclusiveStartKey: startKey,
            Limit: limit + 1 - versions.length,
          }),
        );
        for (const item of (page.Items ?? []).filter(isVersion)) {
          const version = toEntry(item);
          if (!currentListed && version.number < newest) versions.push(toEntry(currentAsVersion(current)));
          currentListed = true;
          versions.push(version);
        }
        startKey = page.LastEvaluatedKey;
        if (!startKey || versions.length > limit) break;
      }
      if (!currentListed) versions.unshift(toEntry(currentAsVersion(current)));
      return { versions: versions.slice(0, limit), more: versions.length > limit };
    },
  };
}
