/**
 * A tenant's webhook endpoints, in one partition per tenant (pk `<tenant>#endpoints`, sk the endpoint id),
 * beside the item that counts them (sk `/count`: `/` is in no endpoint id a path can name, so no
 * request can address it). A create and a delete change the count in the same transaction as the
 * endpoint, so a burst of creates can never pass the stage's limit; a keyed create or rotation
 * records its answer in that transaction too, as every keyed write.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IdempotencyRecord } from '#shared/domain/idempotency/recorded-response';
import { rotateSecrets } from '#shared/domain/webhooks/signing-secrets';
import {
  changedEndpoint,
  type EndpointChange,
  type EndpointStatus,
  type StoredWebhookEndpoint,
} from '#shared/domain/webhooks/webhook-endpoint';
import type { WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import { type RecordRequest, recordLookupOnce } from './idempotency-ledger.ts';
import type { StopSignal } from './stop-signal.ts';
import { StoreUnavailableError } from './store-unavailable-error.ts';
import { backoff, CONTENDED_ITEM } from './write-retry.ts';

/** The sort key of a tenant's count of endpoints. */
const COUNT_SK = '/count';

/** The tenant's partition: tenant ids hold no `#`, so no two tenants' partitions meet. */
const partition = (tenantId: string) => `${tenantId}#endpoints`;

export type CreateEndpointOutcome =
  | { kind: 'created' }
  | { kind: 'recorded'; record: IdempotencyRecord }
  /** The tenant has `limit` endpoints already: nothing was written. */
  | { kind: 'full'; limit: number };

/**
 * What a recover's claim on an endpoint came to: `claimed` (the recover may run, its time recorded),
 * or why not: no such endpoint, disabled, or recovered less than the interval ago (and when).
 */
export type RecoverClaim =
  | { kind: 'claimed' }
  | { kind: 'not-found' }
  | { kind: 'disabled'; reason?: string }
  | { kind: 'too-soon'; lastRecoverAt: number };

export type RotateSecretOutcome =
  | { kind: 'rotated'; endpoint: StoredWebhookEndpoint }
  | { kind: 'recorded'; record: IdempotencyRecord }
  | { kind: 'not-found' };

export interface WebhookEndpointsStore {
  /** A new endpoint, counted against `limit` (`full` past it), with its Idempotency-Key record when the request has one. */
  create(
    tenantId: string,
    endpoint: StoredWebhookEndpoint,
    options: { limit: number; signal?: StopSignal; record?: RecordRequest<void> },
  ): Promise<CreateEndpointOutcome>;
  /** Every endpoint of the tenant, oldest first (at most the stage's limit of them). */
  list(tenantId: string, signal?: StopSignal): Promise<StoredWebhookEndpoint[]>;
  get(tenantId: string, endpointId: string, signal?: StopSignal): Promise<StoredWebhookEndpoint | undefined>;
  /**
   * The endpoint after `change`, or undefined when it does not exist. A change made from the
   * endpoint as read (its events, say) is a function of it, called at every read: what it throws is
   * thrown, nothing written.
   */
  update(
    tenantId: string,
    endpointId: string,
    change: EndpointChange | ((stored: StoredWebhookEndpoint) => EndpointChange),
    at: Date,
    signal?: StopSignal,
  ): Promise<StoredWebhookEndpoint | undefined>;
  /** Removes the endpoint and its place in the count; false when it did not exist. */
  remove(tenantId: string, endpointId: string, signal?: StopSignal): Promise<boolean>;
  /** `current` the new secret (as stored: sealed), the replaced one signing beside it for 24 hours (signing-secrets.ts). */
  rotateSecret(
    tenantId: string,
    endpointId: string,
    current: string,
    nowMs: number,
    options: { signal?: StopSignal; record?: RecordRequest<StoredWebhookEndpoint> },
  ): Promise<RotateSecretOutcome>;
  /** The tenant's number of endpoints, as counted. */
  count(tenantId: string): Promise<number>;
  /**
   * Records a recover of the enabled endpoint at `nowMs`, on condition that none was recorded within
   * `intervalMs` before: of concurrent claims, one is `claimed`.
   */
  claimRecover(
    tenantId: string,
    endpointId: string,
    nowMs: number,
    intervalMs: number,
    signal?: StopSignal,
  ): Promise<RecoverClaim>;
  /**
   * A delivery to the endpoint failed at `nowMs`: the first failure since its last success starts
   * its failing streak. Answers when the streak started (undefined once the endpoint is deleted).
   */
  noteFailure(tenantId: string, endpointId: string, nowMs: number): Promise<number | undefined>;
  /** A delivery went through: the failing streak, if any, ends. */
  noteSuccess(tenantId: string, endpointId: string): Promise<void>;
  /**
   * An attempt's answer took `slow` (its receiver held it), or did not: answers the slow streak,
   * counted up or ended (0; undefined once the endpoint is deleted).
   */
  noteAnswerTime(tenantId: string, endpointId: string, slow: boolean): Promise<number | undefined>;
  /** Disables an enabled endpoint, saying why (nothing happens to one disabled or deleted meanwhile). */
  disable(tenantId: string, endpointId: string, reason: string, at: Date): Promise<void>;
}

/** DynamoDB refuses sort keys over 1024 bytes: an id that long cannot have been stored. */
const MAX_SORT_KEY_BYTES = 1024;

/** An id that cannot name a stored endpoint: too long for a key, or the count's own key. */
const unaddressable = (endpointId: string) =>
  endpointId === COUNT_SK || Buffer.byteLength(endpointId, 'utf8') > MAX_SORT_KEY_BYTES;

function endpointItem(tenantId: string, endpoint: StoredWebhookEndpoint): Record<string, unknown> {
  const { id, secrets, ...fields } = endpoint;
  return {
    pk: partition(tenantId),
    sk: id,
    ...fields,
    secret: secrets.current,
    ...(secrets.previous && { previousSecret: secrets.previous.secret, previousSecretUntil: secrets.previous.until }),
  };
}

function toEndpoint(item: Record<string, unknown>): StoredWebhookEndpoint {
  const endpoint: StoredWebhookEndpoint = {
    id: String(item.sk),
    url: String(item.url),
    events: (item.events as WebhookEventType[]) ?? [],
    description: String(item.description ?? ''),
    status: item.status === 'disabled' ? 'disabled' : ('enabled' satisfies EndpointStatus),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    secrets: {
      current: String(item.secret),
      ...(typeof item.previousSecret === 'string' && {
        previous: { secret: item.previousSecret, until: Number(item.previousSecretUntil) },
      }),
    },
  };
  if (Array.isArray(item.collections)) endpoint.collections = item.collections.map(String);
  if (typeof item.disabledReason === 'string') endpoint.disabledReason = item.disabledReason;
  if (typeof item.failingSince === 'number') endpoint.failingSince = item.failingSince;
  if (typeof item.slowAnswers === 'number') endpoint.slowAnswers = item.slowAnswers;
  if (typeof item.lastRecoverAt === 'number') endpoint.lastRecoverAt = item.lastRecoverAt;
  return endpoint;
}

/**
 * The condition that a whole-item put keeps the last recover it read: a recover claimed meanwhile
 * is not undone by the put (the put reads again and carries it).
 */
function sameLastRecover(stored: StoredWebhookEndpoint): { condition: string; values: Record<string, number> } {
  return stored.lastRecoverAt === undefined
    ? { condition: 'attribute_not_exists(lastRecoverAt)', values: {} }
    : { condition: 'lastRecoverAt = :lastRecoverAt', values: { ':lastRecoverAt': stored.lastRecoverAt } };
}

/** Why a recover's claim was refused, from the endpoint as it was (none: it does not exist). */
function refusedClaim(item: Record<string, unknown> | undefined): RecoverClaim {
  if (!item) return { kind: 'not-found' };
  if (item.status === 'disabled')
    return { kind: 'disabled', ...(typeof item.disabledReason === 'string' && { reason: item.disabledReason }) };
  return { kind: 'too-soon', lastRecoverAt: Number(item.lastRecoverAt) };
}

const MAX_ATTEMPTS = 5;

export function createWebhookEndpointsStore(client: DynamoDBDocumentClient, table: string): WebhookEndpointsStore {
  const read = async (tenantId: string, endpointId: string, signal?: StopSignal) => {
    if (unaddressable(endpointId)) return undefined;
    const { Item } = await client.send(
      new GetCommand({ TableName: table, Key: { pk: partition(tenantId), sk: endpointId }, ConsistentRead: true }),
      { abortSignal: signal },
    );
    return Item ? toEndpoint(Item) : undefined;
  };
  const transact = (input: TransactWriteCommandInput, signal?: StopSignal) =>
    client.send(new TransactWriteCommand(input), { abortSignal: signal });

  return {
    async create(tenantId, endpoint, { limit, signal, record }) {
      const concurrentRecord = recordLookupOnce(tenantId, record, signal);
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        if (signal?.aborted) throw new StoreUnavailableError(`endpoint ${endpoint.id} abandoned at the deadline`);
        try {
          await transact(
            {
              TransactItems: [
                {
                  Put: {
                    TableName: table,
                    Item: endpointItem(tenantId, endpoint),
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
                {
                  Update: {
                    TableName: table,
                    Key: { pk: partition(tenantId), sk: COUNT_SK },
                    UpdateExpression: 'ADD endpoints :one',
                    ConditionExpression: 'attribute_not_exists(endpoints) OR endpoints < :limit',
                    ExpressionAttributeValues: { ':one': 1, ':limit': limit },
                  },
                },
                ...(record ? [record.ledger.recordItem(tenantId, record.claim, record.response(), Date.now())] : []),
              ],
            },
            signal,
          );
          return { kind: 'created' };
        } catch (error) {
          if (signal?.aborted)
            throw new StoreUnavailableError(`endpoint ${endpoint.id} abandoned at the deadline`, { cause: error });
          if (!(error instanceof TransactionCanceledException)) throw error;
          const [endpointReason, countReason, claim] = error.CancellationReasons ?? [];
          // Endpoint ids are fresh ULIDs: the id exists only if this very request wrote it already.
          if (endpointReason?.Code === 'ConditionalCheckFailed') return { kind: 'created' };
          const held = record?.ledger.heldBy(claim);
          if (held) return { kind: 'recorded', record: held };
          const found = await concurrentRecord();
          if (found) return { kind: 'recorded', record: found };
          if (countReason?.Code === 'ConditionalCheckFailed') return { kind: 'full', limit };
          await backoff(attempt, CONTENDED_ITEM);
        }
      }
      throw new StoreUnavailableError(`endpoint ${endpoint.id} kept conflicting after ${MAX_ATTEMPTS} attempts`);
    },

    async list(tenantId, signal) {
      const endpoints: StoredWebhookEndpoint[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :tenant',
            ExpressionAttributeValues: { ':tenant': partition(tenantId) },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
          { abortSignal: signal },
        );
        for (const item of page.Items ?? []) if (item.sk !== COUNT_SK) endpoints.push(toEndpoint(item));
        start = page.LastEvaluatedKey;
      } while (start);
      return endpoints;
    },

    get: read,

    async update(tenantId, endpointId, change, at, signal) {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const stored = await read(tenantId, endpointId, signal);
        if (!stored) return undefined;
        const next = changedEndpoint(stored, typeof change === 'function' ? change(stored) : change, at);
        const recover = sameLastRecover(stored);
        try {
          // Whole-item put on condition that nothing changed it meanwhile (a delivery disabling it, a rotation, a recover).
          await client.send(
            new PutCommand({
              TableName: table,
              Item: endpointItem(tenantId, next),
              ConditionExpression: `updatedAt = :seen AND secret = :secret AND ${recover.condition}`,
              ExpressionAttributeValues: {
                ':seen': stored.updatedAt,
                ':secret': stored.secrets.current,
                ...recover.values,
              },
            }),
            { abortSignal: signal },
          );
          return next;
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
          await backoff(attempt, CONTENDED_ITEM);
        }
      }
      throw new StoreUnavailableError(`endpoint ${endpointId} kept changing after ${MAX_ATTEMPTS} attempts`);
    },

    async remove(tenantId, endpointId, signal) {
      if (unaddressable(endpointId)) return false;
      try {
        await transact(
          {
            TransactItems: [
              {
                Delete: {
                  TableName: table,
                  Key: { pk: partition(tenantId), sk: endpointId },
                  ConditionExpression: 'attribute_exists(pk)',
                },
              },
              {
                Update: {
                  TableName: table,
                  Key: { pk: partition(tenantId), sk: COUNT_SK },
                  UpdateExpression: 'ADD endpoints :less',
                  ExpressionAttributeValues: { ':less': -1 },
                },
              },
            ],
          },
          signal,
        );
        return true;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        if (error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
        throw error;
      }
    },

    async rotateSecret(tenantId, endpointId, current, nowMs, { signal, record }) {
      const concurrentRecord = recordLookupOnce(tenantId, record, signal);
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const stored = await read(tenantId, endpointId, signal);
        if (!stored) {
          const found = await concurrentRecord();
          return found ? { kind: 'recorded', record: found } : { kind: 'not-found' };
        }
        const secrets = rotateSecrets(stored.secrets, current, nowMs);
        const rotated: StoredWebhookEndpoint = { ...stored, secrets, updatedAt: new Date(nowMs).toISOString() };
        try {
          await transact(
            {
              TransactItems: [
                {
                  // The secret fields alone: a PATCH, a disable or a recover's claim made at the same
                  // moment stays as it was written.
                  Update: {
                    TableName: table,
                    Key: { pk: partition(tenantId), sk: endpointId },
                    UpdateExpression:
                      'SET secret = :secret, previousSecret = :previous, previousSecretUntil = :until, updatedAt = :now',
                    // Two rotations at once: one wins, the other starts again from the secret it made.
                    ConditionExpression: 'secret = :seen',
                    ExpressionAttributeValues: {
                      ':seen': stored.secrets.current,
                      ':secret': secrets.current,
                      ':previous': secrets.previous!.secret,
                      ':until': secrets.previous!.until,
                      ':now': rotated.updatedAt,
                    },
                  },
                },
                ...(record ? [record.ledger.recordItem(tenantId, record.claim, record.response(rotated), nowMs)] : []),
              ],
            },
            signal,
          );
          return { kind: 'rotated', endpoint: rotated };
        } catch (error) {
          if (!(error instanceof TransactionCanceledException)) throw error;
          const held = record?.ledger.heldBy(error.CancellationReasons?.[1]);
          if (held) return { kind: 'recorded', record: held };
          const found = await concurrentRecord();
          if (found) return { kind: 'recorded', record: found };
          await backoff(attempt, CONTENDED_ITEM);
        }
      }
      throw new StoreUnavailableError(`endpoint ${endpointId} kept rotating after ${MAX_ATTEMPTS} attempts`);
    },

    async noteFailure(tenantId, endpointId, nowMs) {
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk: partition(tenantId), sk: endpointId },
            UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :now)',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':now': nowMs },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return Number(Attributes?.failingSince);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },

    async noteSuccess(tenantId, endpointId) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk: partition(tenantId), sk: endpointId },
            UpdateExpression: 'REMOVE failingSince',
            ConditionExpression: 'attribute_exists(failingSince)',
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },

    async noteAnswerTime(tenantId, endpointId, slow) {
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk: partition(tenantId), sk: endpointId },
            ...(slow
              ? { UpdateExpression: 'ADD slowAnswers :one', ExpressionAttributeValues: { ':one': 1 } }
              : { UpdateExpression: 'REMOVE slowAnswers' }),
            ConditionExpression: 'attribute_exists(pk)',
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return Number(Attributes?.slowAnswers ?? 0);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },

    async disable(tenantId, endpointId, reason, at) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk: partition(tenantId), sk: endpointId },
            UpdateExpression: 'SET #status = :disabled, disabledReason = :reason, updatedAt = :at',
            ConditionExpression: '#status = :enabled',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':disabled': 'disabled',
              ':enabled': 'enabled',
              ':reason': `${reason} (at ${at.toISOString()})`,
              ':at': at.toISOString(),
            },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },

    async claimRecover(tenantId, endpointId, nowMs, intervalMs, signal) {
      if (unaddressable(endpointId)) return { kind: 'not-found' };
      try {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk: partition(tenantId), sk: endpointId },
            UpdateExpression: 'SET lastRecoverAt = :now',
            ConditionExpression:
              'attribute_exists(pk) AND #status = :enabled AND (attribute_not_exists(lastRecoverAt) OR lastRecoverAt <= :before)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':now': nowMs, ':enabled': 'enabled', ':before': nowMs - intervalMs },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          { abortSignal: signal },
        );
        return { kind: 'claimed' };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return refusedClaim(error.Item && unmarshall(error.Item));
      }
    },

    async count(tenantId) {
      const { Item } = await client.send(
        new GetCommand({ TableName: table, Key: { pk: partition(tenantId), sk: COUNT_SK }, ConsistentRead: true }),
      );
      return Number(Item?.endpoints ?? 0);
    },
  };
}
