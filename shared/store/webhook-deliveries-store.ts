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
   * Makes the endpoint's deliveries that failed for events at or after `since` pending again, with
   * no attempt made (the schedule starts over), at most `limit` of them, oldest first: their keys,
   * and whether more remain.
   */
  recover(
    tenantId: string,
    endpointId: string,
    since: string,
    limit: number,
    signal?: StopSignal,
  ): Promise<{ recovered: DeliveryKey[]; more: boolean }>;
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

    async recover(tenantId, endpointId, since, limit, signal) {
      const recovered: DeliveryKey[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk AND sk >= :since',
            FilterExpression: '#status = :failed',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':pk': partition(tenantId, endpointId), ':since': since, ':failed': 'failed' },
            ExclusiveStartKey: start,
            ConsistentRead: true,
          }),
          { abortSignal: signal },
        );
        for (const item of page.Items ?? []) {
          if (recovered.length === limit) return { recovered, more: true };
          const delivery = toDelivery(item);
          try {
            await client.send(
              new UpdateCommand({
                TableName: table,
                Key: keyOf(tenantId, delivery),
                UpdateExpression: 'SET #status = :pending, attempts = :zero REMOVE nextAttemptAt',
                // Another recover (or nothing at all) may have taken it meanwhile.
                ConditionExpression: '#status = :failed',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':pending': 'pending', ':failed': 'failed', ':zero': 0 },
              }),
              { abortSignal: signal },
            );
            recovered.push({ endpointId, at: delivery.at, messageId: delivery.messageId });
          } catch (error) {
            if (!(error instanceof ConditionalCheckFailedException)) throw error;
          }
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return { recovered, more: false };
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
