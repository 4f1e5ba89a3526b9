/**
 * The two functions of tenant webhooks, declared once like the routes: CDK builds them, their
 * grants, their event sources and their queue from this, and the local runtime serves them the same
 * records. The fan-out reads the tables' streams (a committed note, a job that ended, a document
 * written through the API), keeps one delivery per subscribed endpoint and queues a task for each;
 * the delivery function makes the attempt a task asks for, and queues it again, delayed, for the
 * next attempt of the schedule.
 */

import type { TableAccess } from '#shared/routes';
import { NOTE_SK_PREFIX } from '#shared/store/conversations-store';
import { type TableId, tableSpecs } from '#shared/store/table-specs';

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
    pattern: { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { change: { S: ['replaced', 'merged'] } } } },
  },
];

export const WEBHOOK_FAN_OUT = {
  id: 'fanOutWebhooks',
  handler: 'functions/webhooks/fan-out-webhooks.ts',
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

/**
 * The longest delay a queue gives one message (SQS: 15 minutes): a longer step of the schedule is
 * carried in hops, each task early for its attempt queued again for the rest (deliver-message.ts).
 */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/** The queue of delivery tasks: `cxm-<stage>-webhook-deliveries`. */
export function deliveryQueueName(stage: string): string {
  return `cxm-${stage}-webhook-deliveries`;
}
