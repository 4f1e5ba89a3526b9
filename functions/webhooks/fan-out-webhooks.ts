/**
 * The webhooks' fan-out (the tables' streams, shared/webhook-functions.ts): each record that is an
 * event becomes one delivery per subscribed endpoint and a queued task for each
 * (shared/webhooks/run-webhook-functions.ts), wired to this stage's stores and queue.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/http/logger';
import { publishMetrics } from '#shared/http/metrics';
import { tableOfStreamRecord } from '#shared/settings/table-settings';
import { webhookDeliveriesStore, webhookDeliveryQueue, webhookEndpointsStore } from '#shared/store/function-stores';
import { WEBHOOK_STREAM_SOURCES } from '#shared/webhook-functions';
import { fanOutRecords } from '#shared/webhooks/run-webhook-functions';

const deps = {
  endpoints: webhookEndpointsStore(),
  deliveries: webhookDeliveriesStore(),
  queue: webhookDeliveryQueue(),
  logger,
};
const streamTables = WEBHOOK_STREAM_SOURCES.map((source) => source.table);

export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  try {
    return await fanOutRecords(deps, event.Records, (record) =>
      tableOfStreamRecord(record.eventSourceARN, streamTables),
    );
  } finally {
    // What the batch counted (NoteCreated), as one EMF line.
    publishMetrics();
  }
};
