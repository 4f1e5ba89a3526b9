/**
 * The deliveries of a tenant's endpoints: one item per message and endpoint at pk
 * `<tenant>#<endpointId>`, sk `<event time>#<messageId>`, kept 30 days (TTL). A message is put only
 * if absent, so an event met twice is delivered once; an attempt is recorded on condition that no
 * other attempt was recorded since it read the delivery, so two copies of one queue message record
 * one outcome.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  DELIVERY_RETENTION_MS,
  type DeliveryKey,
  type DeliveryStatus,
  deliverySortKey,
  type WebhookDelivery,
} from '#shared/domain/webhooks/webhook-delivery';
import type { WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import type { StopSignal } from './stop-signal.ts';
import { tableSpecs } from './table-specs.ts';

const TTL_ATTRIBUTE = tableSpecs.webhookDeliveries.timeToLiveAttribute!;

export type RecordDeliveryOutcome = { kind: 'new' } | { kind: 'exists'; delivery: WebhookDelivery };

/** What one attempt left: the delivery's new status and what the list shows of the attempt. */
export interface AttemptRecord {
  status: DeliveryStatus;
  at: string;
  lastStatus?: number;
  lastError?: string;
  nextAttemptAt?: string;
}

/** Where a delivery is and where it stands: what a recover reads of it. */
export interface DeliveryState extends DeliveryKey {
  status: DeliveryStatus;
  attempts: number;
}

/** A page of an endpoint's deliveries, newest first, and whether older ones remain. */
export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  more: boolean;
}

export interface WebhookDeliveriesStore {
  /** The endpoint's deliveries, newest first, at most `limit`, those older than the delivery at sort key `before`. */
  list(
    tenantId: string,
    endpointId: string,
    page: { limit: number; before?: string; signal?: StopSignal },
  ): Promise<DeliveryPage>;
  /** The delivery of a new message, unless it is kept already (then what is kept). */
  record(tenantId: string, delivery: WebhookDelivery, nowMs: number): Promise<RecordDeliveryOutcome>;
  get(tenantId: string, key: DeliveryKey): Promise<WebhookDelivery | undefined>;
  /**
   * Records the attempt after the `seenAttempts`-th: false when another attempt was recorded since
   * (a second copy of the queue message), and nothing is written.
   */
  recordAttempt(tenantId: string, key: DeliveryKey, seenAttempts: number, attempt: AttemptRecord): Promise<boolean>;
  /**
   * The endpoint's deliveries of events at or after `since`, oldest first, at most `limit`, those
   * after the delivery at sort key `after`: where each is and where it stands (never its body), and
   * whether more may follow.
   */
  readSince(
    tenantId: string,
    endpointId: string,
    page: { since: string; after?: string; limit: number; signal?: StopSignal },
  ): Promise<{ deliveries: DeliveryState[]; more: boolean }>;
  /**
   * Makes a failed delivery pending again with no attempt made (its schedule starts over): false
   * when it is no longer failed (another recover took it).
   */
  reopen(tenantId: string, key: DeliveryKey, signal?: StopSignal): Promise<boolean>;
  /**
   * Undoes `reopen` of a delivery whose task could not be queued: failed again with its `attempts`,
   * unless an attempt was made since (then it has a task of its own).
   */
  undoReopen(tenantId: string, key: DeliveryKey, attempts: number): Promise<void>;
  /**
   * Fails a pending delivery without an attempt (its endpoint was disabled or deleted), saying why;
   * false when another attempt was recorded since `seenAttempts`.
   */
  stop(tenantId: string, key: DeliveryKey, seenAttempts: number, reason: string): Promise<boolean>;
}

const partition = (tenantId: string, endpointId: string) => `${tenantId}#${endpointId}`;

function toDelivery(item: Record<string, unknown>): WebhookDelivery {
  const delivery: WebhookDelivery = {
    endpointId: String(item.endpointId),
    at: String(item.at),
    messageId: String(item.messageId),
    type: item.type as WebhookEventType,
    body: String(item.body),
    status: item.status as DeliveryStatus,
    attempts: Number(item.attempts ?? 0),
  };
  for (const field of ['lastAttemptAt', 'lastError', 'nextAttemptAt', 'deliveredAt'] as const)
    if (typeof item[field] === 'string') delivery[field] = item[field];
  if (typeof item.lastStatus === 'number') delivery.lastStatus = item.lastStatus;
  return delivery;
}

export function createWebhookDeliveriesStore(client: DynamoDBDocumentClient, table: string): WebhookDeliveriesStore {
  const keyOf = (tenantId: string, key: DeliveryKey) => ({
    pk: partition(tenantId, key.endpointId),
    sk: deliverySortKey(key),
  });
  return {
    async list(tenantId, endpointId, { limit, before, signal }) {
      const pk = partition(tenantId, endpointId);
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: before === undefined ? 'pk = :pk' : 'pk = :pk AND sk < :before',
          ExpressionAttributeValues: { ':pk': pk, ...(before !== undefined && { ':before': before }) },
          ScanIndexForward: false,
          // One more than the page, to know whether another follows.
          Limit: limit + 1,
          ConsistentRead: true,
        }),
        { abortSignal: signal },
      );
      return { deliveries: Items.slice(0, limit).map(toDelivery), more: Items.length > limit };
    },

    async readSince(tenantId, endpointId, { since, after, limit, signal }) {
      const { Items = [], LastEvaluatedKey } = await client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: after === undefined ? 'pk = :pk AND sk >= :from' : 'pk = :pk AND sk > :from',
          ExpressionAttributeNames: { '#at': 'at', '#status': 'status' },
          ExpressionAttributeValues: { ':pk': partition(tenantId, endpointId), ':from': after ?? since },
          ProjectionExpression: 'endpointId, #at, messageId, #status, attempts',
          Limit: limit,
          ConsistentRead: true,
        }),
        { abortSignal: signal },
      );
      const deliveries = Items.map((item) => ({
        endpointId: String(item.endpointId),
        at: String(item.at),
        messageId: String(item.messageId),
        status: item.status as DeliveryStatus,
        attempts: Number(item.attempts ?? 0),
      }));
      return { deliveries, more: LastEvaluatedKey !== undefined };
    },

    async reopen(tenantId, key, signal) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: keyOf(tenantId, key),
            UpdateExpression: 'SET #status = :pending, attempts = :zero REMOVE nextAttemptAt',
            ConditionExpression: '#status = :failed',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':pending': 'pending', ':failed': 'failed', ':zero': 0 },
          }),
          { abortSignal: signal },
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    async undoReopen(tenantId, key, attempts) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: keyOf(tenantId, key),
            UpdateExpression: 'SET #status = :failed, attempts = :attempts',
            ConditionExpression: '#status = :pending AND attempts = :zero',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':pending': 'pending',
              ':failed': 'failed',
              ':zero': 0,
              ':attempts': attempts,
            },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },

    async record(tenantId, delivery, nowMs) {
      try {
        await client.send(
          new PutCommand({
            TableName: table,
            Item: {
              ...keyOf(tenantId, delivery),
              tenantId,
              ...delivery,
              [TTL_ATTRIBUTE]: Math.ceil((Date.parse(delivery.at) + DELIVERY_RETENTION_MS) / 1000),
              recordedAt: new Date(nowMs).toISOString(),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { kind: 'new' };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException) || !error.Item) throw error;
        return { kind: 'exists', delivery: toDelivery(unmarshall(error.Item)) };
      }
    },

    async get(tenantId, key) {
      const { Item } = await client.send(
        new GetCommand({ TableName: table, Key: keyOf(tenantId, key), ConsistentRead: true }),
      );
      return Item ? toDelivery(Item) : undefined;
    },

    async recordAttempt(tenantId, key, seenAttempts, attempt) {
      const set = ['#status = :status', 'attempts = :next', 'lastAttemptAt = :at'];
      const remove: string[] = [];
      const values: Record<string, unknown> = {
        ':status': attempt.status,
        ':next': seenAttempts + 1,
        ':seen': seenAttempts,
        ':at': attempt.at,
      };
      const optional = {
        lastStatus: attempt.lastStatus,
        lastError: attempt.lastError,
        nextAttemptAt: attempt.nextAttemptAt,
      };
      for (const [field, value] of Object.entries(optional)) {
        if (value === undefined) remove.push(field);
        else {
          set.push(`${field} = :${field}`);
          values[`:${field}`] = value;
        }
      }
      if (attempt.status === 'delivered') set.push('deliveredAt = :at');
      try {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: keyOf(tenantId, key),
            UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
            ConditionExpression: 'attempts = :seen',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: values,
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    async stop(tenantId, key, seenAttempts, reason) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: keyOf(tenantId, key),
            UpdateExpression: 'SET #status = :failed, lastError = :reason REMOVE nextAttemptAt',
            ConditionExpression: 'attempts = :seen AND #status = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':failed': 'failed',
              ':pending': 'pending',
              ':reason': reason,
              ':seen': seenAttempts,
            },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
