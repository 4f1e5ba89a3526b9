/**
 * The three functions of tenant webhooks, declared once like the routes: CDK builds them, their
 * grants, their event sources, their schedule and their queue from this, and the local runtime
 * serves them the same records. The fan-out reads the tables' streams (a committed note, a job that
 * ended, a document written through the API), keeps one delivery per subscribed endpoint and queues
 * a task for each; the delivery function makes the attempt a task asks for, and queues it again,
 * delayed, for the next attempt of the schedule when the queue can carry the wait; the sweeper
 * queues the tasks of longer waits near their time, and again those of tasks lost.
 */

import type { TableAccess } from '#shared/api/route-spec';
import { NOTE_SK_PREFIX } from '#shared/store/conversations-store';
import { DELIVERY_SWEEP_INDEX, type TableId, tableSpecs } from '#shared/store/table-specs';

/** A Lambda event source mapping's filter on a DynamoDB stream record (EventBridge pattern syntax). */
export type StreamRecordPattern = Record<string, unknown>;

/** A table stream the fan-out reads, and the records it takes from it. */
export interface WebhookStreamSource {
  table: TableId;
  pattern: StreamRecordPattern;
}

const conversationsSortKey = tableSpecs.conversations.sortKey!.name;

/**
 * The stream records that are events: a note inserted (only ever inserted: one committed note); a
 * job moved from `started` to an end (a job leaves `started` once: conditional transitions); a
 * document written through the API (its `change` says how; an operator's import writes none).
 */
export const WEBHOOK_STREAM_SOURCES: readonly WebhookStreamSource[] = [
  {
    table: 'conversations',
    pattern: {
      eventName: ['INSERT'],
      dynamodb: { Keys: { [conversationsSortKey]: { S: [{ prefix: NOTE_SK_PREFIX }] } } },
    },
  },
  {
    table: 'vocJobs',
    pattern: {
      eventName: ['MODIFY'],
      dynamodb: {
        OldImage: { status: { S: ['started'] } },
        NewImage: { status: { S: ['completed', 'failed'] } },
      },
    },
  },
  {
    table: 'documents',
    pattern: {
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: { NewImage: { change: { S: ['replaced', 'merged', 'restored'] } } },
    },
  },
];

export const WEBHOOK_FAN_OUT = {
  id: 'fanOutWebhooks',
  handler: 'functions/webhooks/fan-out-webhooks.ts',
  /**
   * How each table stream's mapping hands out records (CDK sets it; the local stream reader plays
   * it): batches of 10, ten of a shard at once, a partition key's records in one lane in order, so
   * one conversation's burst of notes does not hold the events of every other behind it.
   */
  mapping: { batchSize: 10, parallelizationFactor: 10 },
  tables: {
    // The tenant's endpoints, read whole per event; a delivery put only if absent.
    webhookEndpoints: { operations: ['Query'] },
    webhookDeliveries: { operations: ['PutItem'] },
  } satisfies Partial<Record<TableId, TableAccess>>,
} as const;

export const WEBHOOK_DELIVERY = {
  id: 'deliverWebhooks',
  handler: 'functions/webhooks/deliver-webhooks.ts',
  /**
   * How the queue's event source mapping hands out tasks (CDK sets it; the local queue plays it):
   * batches of 10, SQS's most, up to 20 at once.
   */
  mapping: { batchSize: 10, maxConcurrency: 20 },
  tables: {
    // The endpoint's URL and secrets; its failing streak, or disabled (410, 5 days of failures).
    webhookEndpoints: { operations: ['GetItem', 'UpdateItem'] },
    // The delivery read, its attempt recorded.
    webhookDeliveries: { operations: ['GetItem', 'UpdateItem'] },
  } satisfies Partial<Record<TableId, TableAccess>>,
} as const;

/** The queue of delivery tasks: `cxm-<stage>-webhook-deliveries`. */
export function deliveryQueueName(stage: string): string {
  return `cxm-${stage}-webhook-deliveries`;
}

/**
 * The sweeper of pending deliveries, on a schedule: it queues the task of each delivery whose time
 * in the deliveries' sweep index has come (shared/domain/webhooks/delivery-sweep.ts): one whose
 * task was lost, and one whose next attempt is further off than the queue's longest delay, a lead
 * before its time.
 */
export const WEBHOOK_SWEEP = {
  id: 'sweepWebhooks',
  handler: 'functions/webhooks/sweep-webhooks.ts',
  tables: {
    // The due deliveries, from the sweep index alone; each one's sweep time moved on once its task is queued.
    webhookDeliveries: { operations: ['UpdateItem'], indexQueries: [DELIVERY_SWEEP_INDEX] },
  } satisfies Partial<Record<TableId, TableAccess>>,
} as const;

/**
 * The deploy-time function behind the stack's webhook sealing key resource: it gives the
 * registration and the rotation the public key of the stage's webhook secret key, and rotates the
 * key when the stage's generation of it goes up (infra/cdk/constructs/webhook-sealing-key.ts).
 */
export const WEBHOOK_SEALING_KEY = {
  id: 'publishWebhookSealingKey',
  handler: 'functions/webhooks/publish-webhook-sealing-key.ts',
} as const;

/** The rule that runs the sweeper (EventBridge's "Scheduled Event" names it in `resources`). */
export function webhookSweepRuleName(stage: string): string {
  return `cxm-${stage}-webhook-delivery-sweep`;
}
