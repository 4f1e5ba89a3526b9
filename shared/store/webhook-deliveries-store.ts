/**
 * The deliveries of a tenant's endpoints: one item per message and endpoint at pk
 * `<tenant>#<endpointId>`, sk `<event time>#<messageId>`, kept 30 days (TTL). A message is put only
 * if absent, so an event met twice is delivered once; an attempt is claimed before it posts, and
 * recorded, on condition that no other attempt was recorded since it read the delivery or holds a
 * claim, so copies of one queue message post once and record one outcome. Every write that leaves
 * a delivery pending gives it its shard and time in the sweep index (`sweepShard`, `sweepAt`:
 * shared/domain/webhooks/delivery-sweep.ts), and every write that ends it removes them, so the
 * index holds the pending deliveries alone.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DELIVERY_SWEEP_TIMING, sweepAtOf, sweepShardOf } from '#shared/domain/webhooks/delivery-sweep';
import {
  DELIVERY_RETENTION_MS,
  type DeliveryKey,
  type DeliveryStatus,
  deliverySortKey,
  type WebhookDelivery,
} from '#shared/domain/webhooks/webhook-delivery';
import type { WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import type { StopSignal } from './stop-signal.ts';
import { DELIVERY_SWEEP_INDEX, tableSpecs } from './table-specs.ts';

const TTL_ATTRIBUTE = tableSpecs.webhookDeliveries.timeToLiveAttribute!;
/** Until when an attempt in progress holds the delivery (ISO 8601), while it does. */
const CLAIM = 'attemptClaimedUntil';

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

/** A pending delivery whose time in the sweep index has come: whose, where, and where it stands. */
export interface SweptDelivery {
  tenantId: string;
  key: DeliveryKey;
  attempts: number;
  nextAttemptAt?: string;
  /** Its time in the sweep index as read: the sweeper moves it on from this one only. */
  sweepAt: string;
}

/** Where the next page of a sweep shard begins (the query's own position, opaque). */
export type SweepCursor = Record<string, unknown>;

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
   * Claims the attempt after the `seenAttempts`-th of a pending delivery until `untilMs`, at
   * `nowMs`: false, and nothing written, when another attempt was recorded since or holds a claim
   * that has not lapsed (a copy of the queue message is posting it).
   */
  claimAttempt(
    tenantId: string,
    key: DeliveryKey,
    seenAttempts: number,
    nowMs: number,
    untilMs: number,
  ): Promise<boolean>;
  /**
   * Records the attempt after the `seenAttempts`-th, and ends its claim: false when another attempt
   * was recorded since, and nothing is written.
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
   * Makes a failed delivery pending again with no attempt made (its schedule starts over), at
   * `nowMs`: false when it is no longer failed (another recover took it).
   */
  reopen(tenantId: string, key: DeliveryKey, signal?: StopSignal, nowMs?: number): Promise<boolean>;
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
  /**
   * The pending deliveries of sweep shard `shard` whose time in the sweep index is at or before
   * `nowMs`, the longest due first, at most `limit`, from where the page before ended (its `next`):
   * across tenants, the one read that is, for the sweeper (each delivery is then written by its
   * tenant and key). The index is eventually consistent: a write of a moment ago may not show yet.
   */
  dueForSweep(
    shard: number,
    nowMs: number,
    page: { limit: number; after?: SweepCursor },
  ): Promise<{ deliveries: SweptDelivery[]; next?: SweepCursor }>;
  /**
   * Makes every pending delivery due to the sweeper at its next attempt's time (now, if it names
   * none), unless its time there is sooner already: what a local stack does at its start, since
   * the tasks of the run before were in its queue's memory, and deliveries kept before the sweep
   * index have no time there. Reads the whole table (a local store's); answers how many it moved.
   */
  dueAtTheirTime(nowMs: number): Promise<number>;
  /**
   * Moves the delivery's time in the sweep index to `toMs`, on condition that no attempt and no
   * other sweep changed it since it was read as `seen`: false, and nothing written, otherwise.
   */
  moveSweep(
    tenantId: string,
    key: DeliveryKey,
    seen: Pick<SweptDelivery, 'attempts' | 'sweepAt'>,
    toMs: number,
  ): Promise<boolean>;
}

/**
 * Sends `update`; false, and nothing written, when its condition does not hold (another attempt,
 * recover or sweep came first), which every conditional write of a delivery answers alike.
 */
async function updateIfHeld(
  client: DynamoDBDocumentClient,
  update: UpdateCommandInput,
  signal?: StopSignal,
): Promise<boolean> {
  try {
    await client.send(new UpdateCommand(update), { abortSignal: signal });
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

const partition = (tenantId: string, endpointId: string) => `${tenantId}#${endpointId}`;

/** The sweep index's attributes of a pending delivery at `key`, due at `dueMs`, as decided at `fromMs`. */
function sweepFields(key: { pk: string; sk: string }, dueMs: number, fromMs: number) {
  return {
    sweepShard: sweepShardOf(key.pk, key.sk),
    sweepAt: new Date(sweepAtOf(dueMs, fromMs, DELIVERY_SWEEP_TIMING)).toISOString(),
  };
}

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

    async reopen(tenantId, key, signal, nowMs = Date.now()) {
      const itemKey = keyOf(tenantId, key);
      // Its task is queued next (recover-deliveries.ts): the sweeper sends another if it is lost.
      const sweep = sweepFields(itemKey, nowMs, nowMs);
      return updateIfHeld(
        client,
        {
          TableName: table,
          Key: itemKey,
          UpdateExpression:
            'SET #status = :pending, attempts = :zero, sweepShard = :shard, sweepAt = :sweepAt REMOVE nextAttemptAt',
          ConditionExpression: '#status = :failed',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':failed': 'failed',
            ':zero': 0,
            ':shard': sweep.sweepShard,
            ':sweepAt': sweep.sweepAt,
          },
        },
        signal,
      );
    },

    async undoReopen(tenantId, key, attempts) {
      await updateIfHeld(client, {
        TableName: table,
        Key: keyOf(tenantId, key),
        UpdateExpression: 'SET #status = :failed, attempts = :attempts REMOVE sweepShard, sweepAt',
        ConditionExpression: '#status = :pending AND attempts = :zero',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':failed': 'failed',
          ':zero': 0,
          ':attempts': attempts,
        },
      });
    },

    async record(tenantId, delivery, nowMs) {
      const itemKey = keyOf(tenantId, delivery);
      const due = delivery.nextAttemptAt === undefined ? nowMs : Date.parse(delivery.nextAttemptAt);
      try {
        await client.send(
          new PutCommand({
            TableName: table,
            Item: {
              ...itemKey,
              tenantId,
              ...delivery,
              [TTL_ATTRIBUTE]: Math.ceil((Date.parse(delivery.at) + DELIVERY_RETENTION_MS) / 1000),
              recordedAt: new Date(nowMs).toISOString(),
              // Its task is queued next (the fan-out): the sweeper sends another if it is lost.
              ...(delivery.status === 'pending' && sweepFields(itemKey, due, nowMs)),
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

    async claimAttempt(tenantId, key, seenAttempts, nowMs, untilMs) {
      return updateIfHeld(client, {
        TableName: table,
        Key: keyOf(tenantId, key),
        UpdateExpression: `SET ${CLAIM} = :until`,
        ConditionExpression: `#status = :pending AND attempts = :seen AND (attribute_not_exists(${CLAIM}) OR ${CLAIM} <= :now)`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':seen': seenAttempts,
          ':now': new Date(nowMs).toISOString(),
          ':until': new Date(untilMs).toISOString(),
        },
      });
    },

    async recordAttempt(tenantId, key, seenAttempts, attempt) {
      const set = ['#status = :status', 'attempts = :next', 'lastAttemptAt = :at'];
      const remove: string[] = [CLAIM];
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
      const itemKey = keyOf(tenantId, key);
      if (attempt.status === 'pending') {
        // Due at its next attempt: queued now when the queue can carry the wait, else by the sweeper.
        const at = Date.parse(attempt.at);
        const due = attempt.nextAttemptAt === undefined ? at : Date.parse(attempt.nextAttemptAt);
        const sweep = sweepFields(itemKey, due, at);
        set.push('sweepShard = :sweepShard', 'sweepAt = :sweepAt');
        values[':sweepShard'] = sweep.sweepShard;
        values[':sweepAt'] = sweep.sweepAt;
      } else remove.push('sweepShard', 'sweepAt');
      return updateIfHeld(client, {
        TableName: table,
        Key: itemKey,
        UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: 'attempts = :seen',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      });
    },

    async stop(tenantId, key, seenAttempts, reason) {
      return updateIfHeld(client, {
        TableName: table,
        Key: keyOf(tenantId, key),
        UpdateExpression: `SET #status = :failed, lastError = :reason REMOVE nextAttemptAt, sweepShard, sweepAt, ${CLAIM}`,
        ConditionExpression: 'attempts = :seen AND #status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':pending': 'pending',
          ':reason': reason,
          ':seen': seenAttempts,
        },
      });
    },

    async dueForSweep(shard, nowMs, { limit, after }) {
      const { Items = [], LastEvaluatedKey } = await client.send(
        new QueryCommand({
          TableName: table,
          IndexName: DELIVERY_SWEEP_INDEX,
          KeyConditionExpression: 'sweepShard = :shard AND sweepAt <= :now',
          ExpressionAttributeValues: { ':shard': shard, ':now': new Date(nowMs).toISOString() },
          Limit: limit,
          ExclusiveStartKey: after,
        }),
      );
      const deliveries = Items.map(
        (item): SweptDelivery => ({
          tenantId: String(item.tenantId),
          key: { endpointId: String(item.endpointId), at: String(item.at), messageId: String(item.messageId) },
          attempts: Number(item.attempts ?? 0),
          ...(typeof item.nextAttemptAt === 'string' && { nextAttemptAt: item.nextAttemptAt }),
          sweepAt: String(item.sweepAt),
        }),
      );
      return { deliveries, ...(LastEvaluatedKey && { next: LastEvaluatedKey }) };
    },

    async dueAtTheirTime(nowMs) {
      let moved = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new ScanCommand({
            TableName: table,
            FilterExpression: '#status = :pending',
            ProjectionExpression: 'pk, sk, attempts, nextAttemptAt, sweepAt',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':pending': 'pending' },
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) {
          const due = typeof item.nextAttemptAt === 'string' ? item.nextAttemptAt : new Date(nowMs).toISOString();
          if (typeof item.sweepAt === 'string' && item.sweepAt <= due) continue;
          const key = { pk: String(item.pk), sk: String(item.sk) };
          // Not moved when attempted meanwhile: its record placed it.
          if (
            await updateIfHeld(client, {
              TableName: table,
              Key: key,
              UpdateExpression: 'SET sweepShard = :shard, sweepAt = :due',
              ConditionExpression: '#status = :pending AND attempts = :attempts',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':shard': sweepShardOf(key.pk, key.sk),
                ':due': due,
                ':pending': 'pending',
                ':attempts': Number(item.attempts ?? 0),
              },
            })
          )
            moved++;
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return moved;
    },

    async moveSweep(tenantId, key, seen, toMs) {
      return updateIfHeld(client, {
        TableName: table,
        Key: keyOf(tenantId, key),
        UpdateExpression: 'SET sweepAt = :to',
        ConditionExpression: 'attempts = :attempts AND sweepAt = :seen',
        ExpressionAttributeValues: {
          ':to': new Date(toMs).toISOString(),
          ':attempts': seen.attempts,
          ':seen': seen.sweepAt,
        },
      });
    },
  };
}
