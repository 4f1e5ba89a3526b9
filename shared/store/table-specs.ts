/**
 * Every DynamoDB table, declared once. CDK builds the tables from these specs and the local
 * runtime issues CreateTable from them, so a key or index cannot differ between cloud and laptop.
 */
import { FUNCTION_ENV } from '#shared/settings/setting-names';
export type TableId =
  | 'keys'
  | 'conversations'
  | 'documents'
  | 'documentVersions'
  | 'vocJobs'
  | 'reporting'
  | 'reportingCounts'
  | 'idempotency'
  | 'webhookEndpoints'
  | 'webhookDeliveries';

export interface KeyAttribute {
  name: string;
  type: 'S' | 'N';
}

export interface IndexSpec {
  name: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  /**
   * The attributes the index holds besides the keys (DynamoDB's INCLUDE projection), where its
   * readers need a few of a large item's; unset, it holds every attribute (ALL).
   */
  include?: readonly string[];
}

export interface TableSpec {
  id: TableId;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  indexes: IndexSpec[];
  /**
   * What the table's stream shows, if it has one: new images feed events (NoteCreated, webhooks);
   * the OpenSearch indexer needs old images too, to find a row's previous year index, and the
   * webhooks' fan-out to see that a job was `started` before.
   */
  stream: false | 'NEW_IMAGE' | 'NEW_AND_OLD_IMAGES';
  /**
   * The stream exists only where this reporting backend reads it: DynamoDB keeps every record of a
   * stream nobody reads, and DynamoDB Local reads every other stream slower for each of them.
   */
  streamFor?: 'opensearch';
  /** Environment variable through which a function learns the physical table name. */
  envVar: string;
  /** Attribute holding an epoch-seconds expiry that DynamoDB TTL deletes items by. */
  timeToLiveAttribute?: string;
}

/** The deliveries table's sparse index of pending deliveries, by when the sweeper must act on each. */
export const DELIVERY_SWEEP_INDEX = 'byPendingSweep';
/** The document-versions table's index of each version without its document: what the versions list answers. */
export const VERSION_ENTRIES_INDEX = 'versionEntries';

export const tableSpecs: Record<TableId, TableSpec> = {
  keys: {
    id: 'keys',
    partitionKey: { name: 'keyHash', type: 'S' },
    indexes: [{ name: 'byKeyId', partitionKey: { name: 'keyId', type: 'S' } }],
    stream: false,
    envVar: FUNCTION_ENV.tables.keys,
  },
  conversations: {
    id: 'conversations',
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    indexes: [],
    stream: 'NEW_IMAGE',
    envVar: FUNCTION_ENV.tables.conversations,
  },
  documents: {
    id: 'documents',
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    indexes: [],
    // Feeds the webhooks' fan-out: a document written through the API (shared/webhook-functions.ts).
    stream: 'NEW_IMAGE',
    envVar: FUNCTION_ENV.tables.documents,
  },
  documentVersions: {
    id: 'documentVersions',
    // `<tenant>#<collection>#<docId>` / the version's number: a document's history, newest first
    // by a query (tenant ids and collections hold no `#`, so the docId is the rest of the key).
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'N' },
    // The versions list reads what it answers and no document: a page of a large document's
    // versions would otherwise read up to 350 KB per entry.
    indexes: [
      {
        name: VERSION_ENTRIES_INDEX,
        partitionKey: { name: 'pk', type: 'S' },
        sortKey: { name: 'sk', type: 'N' },
        include: ['createdAt', 'etag', 'bytes', 'change', 'keyId', 'expiresAt'],
      },
    ],
    stream: false,
    envVar: FUNCTION_ENV.tables.documentVersions,
    // A version is kept the stage's longest age after it was made (documents-store.ts).
    timeToLiveAttribute: 'expiresAt',
  },
  vocJobs: {
    id: 'vocJobs',
    partitionKey: { name: 'pk', type: 'S' },
    // Sparse: only the upload jobs still `started`, oldest first, for the processor's sweep, which
    // collects an analysis whose completion event was lost and fails a job past its deadlines even
    // when nobody reads it (voc-jobs-store.ts). The table also holds each tenant's count of them.
    indexes: [
      { name: 'byOpenJob', partitionKey: { name: 'openJob', type: 'S' }, sortKey: { name: 'openedAt', type: 'N' } },
    ],
    // Feeds the webhooks' fan-out: a job that left `started` (the old image says it was).
    stream: 'NEW_AND_OLD_IMAGES',
    envVar: FUNCTION_ENV.tables.vocJobs,
  },
  reporting: {
    id: 'reporting',
    partitionKey: { name: 'pk', type: 'S' },
    // The window index: every row of a tenant's list, ordered by Datetime then ID.
    indexes: [{ name: 'byTime', partitionKey: { name: 'gpk', type: 'S' }, sortKey: { name: 'gsk', type: 'S' } }],
    // Feeds the OpenSearch indexer: a MODIFY's old image says which year index held the row, a
    // REMOVE's which one holds it (shared/store/opensearch-bulk.ts).
    stream: 'NEW_AND_OLD_IMAGES',
    streamFor: 'opensearch',
    envVar: FUNCTION_ENV.tables.reporting,
  },
  reportingCounts: {
    id: 'reportingCounts',
    // `<tenant>#<kind>` / `<level>#<bucket start>`: the rows of a list per hour, day and longer
    // blocks (shared/domain/reporting/count-buckets.ts), kept by the writes of the rows themselves.
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    indexes: [],
    stream: false,
    envVar: FUNCTION_ENV.tables.reportingCounts,
  },
  idempotency: {
    id: 'idempotency',
    // `<tenant>#<Idempotency-Key>`: one record per key and tenant.
    partitionKey: { name: 'pk', type: 'S' },
    indexes: [],
    stream: false,
    envVar: FUNCTION_ENV.tables.idempotency,
    // Deletion is lazy (within days): the ledger also treats a record past expiresAtMs as gone.
    timeToLiveAttribute: 'expiresAt',
  },
  webhookEndpoints: {
    id: 'webhookEndpoints',
    // `<tenant>#endpoints` / `<endpointId>`: a tenant's endpoints in one partition, read whole for each of
    // its events, beside their count (sk `/count`, webhook-endpoints-store.ts).
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    indexes: [],
    stream: false,
    envVar: FUNCTION_ENV.tables.webhookEndpoints,
  },
  webhookDeliveries: {
    id: 'webhookDeliveries',
    // `<tenant>#<endpointId>` / `<event time>#<messageId>`: an endpoint's deliveries in the order of
    // their events, for its deliveries list and a recover since a time (webhook-deliveries-store.ts).
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    // Sparse: only the pending deliveries, in a few shards by a hash of their key, each by the time
    // the sweeper must act on it (shared/domain/webhooks/delivery-sweep.ts). It holds what the
    // sweeper reads of them, not their bodies.
    indexes: [
      {
        name: DELIVERY_SWEEP_INDEX,
        partitionKey: { name: 'sweepShard', type: 'N' },
        sortKey: { name: 'sweepAt', type: 'S' },
        include: ['tenantId', 'endpointId', 'at', 'messageId', 'attempts', 'nextAttemptAt'],
      },
    ],
    stream: false,
    envVar: FUNCTION_ENV.tables.webhookDeliveries,
    // Kept 30 days after their event, what a recover can reach back to.
    timeToLiveAttribute: 'expiresAt',
  },
};

export const allTableSpecs: TableSpec[] = Object.values(tableSpecs);

/**
 * A stage names the stack, the API stage and every table, and an operator types it for the CLI:
 * a short lowercase label (20 characters keep function names `cxm-<stage>-<route>` under 64).
 */
export const STAGE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;

/** Physical names follow `cxm-<stage>-<table>` so the CLI can find a stage's tables by name. */
export function physicalTableName(stage: string, id: TableId): string {
  // Table ids are camelCase in code (`vocJobs`), kebab-case in names (`voc-jobs`).
  return `cxm-${stage}-${id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * The stream `spec`'s table has where the reporting lists are served by `backend`.
 *
 * @example tableStream(tableSpecs.reporting, 'dynamodb') // false: nothing reads it there
 */
export function tableStream(spec: TableSpec, backend: 'opensearch' | 'dynamodb'): TableSpec['stream'] {
  return spec.streamFor && spec.streamFor !== backend ? false : spec.stream;
}
