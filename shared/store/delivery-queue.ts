/**
 * The queue of webhook delivery tasks, on SQS: a task is a message naming the tenant and the
 * delivery, sent with a delay up to SQS's 15 minutes (the sweeper queues the task of a longer
 * wait near its time: sweep-deliveries.ts; a task early all the same is answered the rest, carried
 * in hops: deliver-message.ts). Sent in batches of 10, SQS's most; a batch any entry of which failed
 * is an error, so the caller's event is retried rather than a task lost (a task sent twice is
 * harmless).
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { MAX_QUEUE_DELAY_SECONDS } from '#shared/domain/webhooks/delivery-sweep';
import type { DeliveryTask } from '#shared/domain/webhooks/webhook-delivery';

/** SQS's most entries in one SendMessageBatch. */
const BATCH = 10;

export interface DeliveryQueue {
  /** Queues `tasks`, each to arrive after `delayMs` (at most 15 minutes later). */
  send(tasks: readonly DeliveryTask[], delayMs: number): Promise<void>;
}

/** A task as its message body says it, or undefined for a body that is none. */
export function parseDeliveryTask(body: string): DeliveryTask | undefined {
  try {
    const task = JSON.parse(body) as Partial<DeliveryTask>;
    const key = task.key;
    return typeof task.tenantId === 'string' &&
      typeof key?.endpointId === 'string' &&
      typeof key.at === 'string' &&
      typeof key.messageId === 'string'
      ? { tenantId: task.tenantId, key: { endpointId: key.endpointId, at: key.at, messageId: key.messageId } }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The SQS queue at `queueUrl`.
 *
 * @example const queue = createSqsDeliveryQueue(new SQSClient({}), process.env.CXM_WEBHOOK_QUEUE_URL);
 */
export function createSqsDeliveryQueue(client: SQSClient, queueUrl: string): DeliveryQueue {
  return {
    async send(tasks, delayMs) {
      const delaySeconds = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil(delayMs / 1000)));
      for (let start = 0; start < tasks.length; start += BATCH) {
        const batch = tasks.slice(start, start + BATCH);
        const { Failed = [] } = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((task, index) => ({
              Id: String(index),
              MessageBody: JSON.stringify(task),
              DelaySeconds: delaySeconds,
              // A fair queue: a tenant with a backlog, or whose receivers hold its tasks, does not
              // hold back the others' deliveries.
              MessageGroupId: task.tenantId,
            })),
          }),
        );
        if (Failed.length > 0)
          throw new Error(
            `the delivery queue refused ${Failed.length} of ${batch.length} tasks: ${Failed.map((entry) => entry.Message ?? entry.Code).join('; ')}`,
          );
      }
    },
  };
}
