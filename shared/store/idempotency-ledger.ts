/**
 * The idempotency table: one record per `<tenant>#<key>`, written only as an item of the
 * transaction that commits the write it guards, on condition that no live record holds the key.
 * So a record exists if and only if its write committed, there is no in-progress state to clean
 * up, and a request that fails records nothing. When the key is taken, the transaction's
 * cancellation reason carries the record (ALL_OLD): replaying costs no read.
 */
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  IdempotencyClaim,
  IdempotencyRecord,
  RecordedResponse,
} from '#shared/domain/idempotency/recorded-response';
import { tenantKey } from './composite-key.ts';
import type { StopSignal } from './stop-signal.ts';
import { tableSpecs } from './table-specs.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The table's TTL attribute (epoch seconds); DynamoDB deletes expired records within days. */
const TTL_ATTRIBUTE = tableSpecs.idempotency.timeToLiveAttribute!;

/** A write's request to be recorded: where, under which claim, and the response it answers with. */
export interface RecordRequest<Result> {
  ledger: IdempotencyLedger;
  claim: IdempotencyClaim;
  /** The response of the write, from what the write produced (a created flag, a document). */
  response: (result: Result) => RecordedResponse;
}

export interface IdempotencyLedger {
  /** The transaction item that records `response` under the claim's key unless a live record holds it. */
  recordItem(tenantId: string, claim: IdempotencyClaim, response: RecordedResponse, nowMs: number): TransactItem;
  /** The live record that refused `recordItem`, read from that item's cancellation reason. */
  heldBy(reason: CancellationReason | undefined): IdempotencyRecord | undefined;
  /** The live record of a key, read (strongly consistent) when no transaction could tell. */
  find(tenantId: string, key: string, signal?: StopSignal): Promise<IdempotencyRecord | undefined>;
}

function toRecord(item: Record<string, unknown>): IdempotencyRecord {
  return {
    fingerprint: String(item.fingerprint),
    response: {
      status: Number(item.status),
      bodyText: String(item.body),
      headers: (item.headers ?? {}) as Record<string, string>,
    },
    createdAt: String(item.createdAt),
    expiresAtMs: Number(item.expiresAtMs),
  };
}

export function createIdempotencyLedger(
  client: DynamoDBDocumentClient,
  table: string,
  ttlMs: number,
): IdempotencyLedger {
  return {
    recordItem(tenantId, claim, response, nowMs) {
      const pk = tenantKey(tenantId, claim.key);
      // A tenant id is at most 128 characters and a key 255: far below the key limit.
      if (pk === undefined) throw new RangeError('idempotency key too long to store');
      const expiresAtMs = nowMs + ttlMs;
      return {
        Put: {
          TableName: table,
          Item: {
            pk,
            fingerprint: claim.fingerprint,
            status: response.status,
            body: response.bodyText,
            headers: response.headers,
            createdAt: new Date(nowMs).toISOString(),
            expiresAtMs,
            [TTL_ATTRIBUTE]: Math.ceil(expiresAtMs / 1000),
          },
          // An expired record that TTL has not deleted yet frees its key all the same.
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs <= :now',
          ExpressionAttributeValues: { ':now': nowMs },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      };
    },

    heldBy(reason) {
      // The condition admits an expired record, so a record that refused it is a live one.
      return reason?.Code === 'ConditionalCheckFailed' && reason.Item ? toRecord(unmarshall(reason.Item)) : undefined;
    },

    async find(tenantId, key, signal) {
      const pk = tenantKey(tenantId, key);
      if (pk === undefined) return undefined;
      const { Item } = await client.send(new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }), {
        abortSignal: signal,
      });
      // DynamoDB deletes expired items late: an expired record is no record.
      return Item && Number(Item.expiresAtMs) > Date.now() ? toRecord(Item) : undefined;
    },
  };
}

/**
 * Concurrent requests with one key keep conflicting on its record until one commits; after a
 * conflict, one consistent read of the record tells a loser to replay instead of trying again.
 * Reads at most once per request (the rest of the budget is retries of the write).
 */
export function recordLookupOnce(
  tenantId: string,
  record: RecordRequest<never> | undefined,
  signal: StopSignal | undefined,
): () => Promise<IdempotencyRecord | undefined> {
  let looked = false;
  return async () => {
    if (!record || looked) return undefined;
    looked = true;
    return record.ledger.find(tenantId, record.claim.key, signal);
  };
}
