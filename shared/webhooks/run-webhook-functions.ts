/**
 * What the two webhook functions do with a batch, apart from where their stores and queue are:
 * the fan-out turns the stream records that are events into deliveries and queues their tasks,
 * up to the first record that failed (reported, so the stream gives it again with those after it:
 * nothing skipped, and a record given twice makes no second delivery), and counts the committed
 * notes among the records it kept (NoteCreated, which the fan-out function publishes); the delivery
 * function makes the attempt each task asks for, side by side, queues the next attempt of those
 * that failed, and reports the tasks it could not settle, which the queue gives again.
 */

import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBBatchResponse, DynamoDBRecord, SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-events';
import { APP_METRICS } from '#shared/http/metric-names';
import { countMetric } from '#shared/http/metrics';
import type { DeliveryQueue } from '#shared/store/delivery-queue';
import { parseDeliveryTask } from '#shared/store/delivery-queue';
import type { TableId } from '#shared/store/table-specs';
import { webhookEventOf } from '#shared/store/webhook-stream-events';
import { type DeliverMessageDeps, deliverMessage } from './deliver-message.ts';
import { type FanOutDeps, fanOutEvent } from './fan-out-event.ts';

/**
 * The fan-out of a batch of stream records; `tableOf` names the table a record's stream is of.
 * The records are turned into deliveries side by side, each tenant's endpoints read once for the
 * batch, and the tasks of the records before the first that failed are queued in one go: a batch
 * costs the time of its slowest record, not the sum of all.
 *
 * @example return fanOutRecords({ endpoints, deliveries, queue, logger }, event.Records, tableOfStream);
 */
export async function fanOutRecords(
  deps: FanOutDeps & { queue: DeliveryQueue; logger: Logger },
  records: readonly DynamoDBRecord[],
  tableOf: (record: DynamoDBRecord) => TableId | undefined,
): Promise<DynamoDBBatchResponse> {
  const listed = new Map<string, ReturnType<FanOutDeps['endpoints']['list']>>();
  const endpoints: FanOutDeps['endpoints'] = {
    list: (tenantId) => {
      const found = listed.get(tenantId) ?? deps.endpoints.list(tenantId);
      listed.set(tenantId, found);
      return found;
    },
  };
  const events = records.map((record) => {
    const table = tableOf(record);
    return table === undefined ? undefined : webhookEventOf(table, record as Parameters<typeof webhookEventOf>[1]);
  });
  const outcomes = await Promise.allSettled(
    events.map(async (found) => (found ? fanOutEvent({ ...deps, endpoints }, found.tenantId, found.event) : [])),
  );
  const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
  const settled = failed < 0 ? outcomes : outcomes.slice(0, failed);
  const retryFrom = (index: number, error: unknown) => {
    const record = records[index]!;
    deps.logger.error('a stream record left for retry', { error, eventID: record.eventID });
    // The stream gives it again with every record after it; those already kept make no second delivery.
    return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
  };
  try {
    await deps.queue.send(
      settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : [])),
      0,
    );
  } catch (error) {
    return retryFrom(0, error);
  }
  countCreatedNotes(events.slice(0, settled.length));
  if (failed >= 0) return retryFrom(failed, (outcomes[failed] as PromiseRejectedResult).reason);
  return { batchItemFailures: [] };
}

/**
 * NoteCreated, counted here rather than by the note's function: a kept record is a committed note,
 * counted once, on the pass that keeps it (a record given again was not kept before), and the
 * note's request pays nothing for its count. The function publishes it when the batch ends.
 */
function countCreatedNotes(kept: ReadonlyArray<{ event: WebhookEvent } | undefined>): void {
  const notes = kept.filter((found) => found?.event.type === 'note.created').length;
  if (notes > 0) countMetric(APP_METRICS.noteCreated, notes);
}

/**
 * The attempts a batch of queued tasks asks for.
 *
 * @example return deliverQueuedTasks({ endpoints, deliveries, rules, queue, logger }, event.Records);
 */
export async function deliverQueuedTasks(
  deps: DeliverMessageDeps & { queue: DeliveryQueue; logger: Logger },
  records: readonly SQSRecord[],
): Promise<SQSBatchResponse> {
  const settled = await Promise.all(
    records.map(async (record) => {
      const task = parseDeliveryTask(record.body);
      if (!task) {
        // Not a task of ours: taking it again would not make it one.
        deps.logger.error('a queued message that is no delivery task was dropped', { messageId: record.messageId });
        return true;
      }
      try {
        const next = await deliverMessage(deps, task.tenantId, task.key);
        if (next.kind === 'retry') await deps.queue.send([task], next.afterMs);
        return true;
      } catch (error) {
        deps.logger.error('a delivery task left for retry', { error, messageId: record.messageId });
        return false;
      }
    }),
  );
  return {
    batchItemFailures: records.flatMap((record, index) =>
      settled[index] ? [] : [{ itemIdentifier: record.messageId }],
    ),
  };
}
