/**
 * The webhooks' delivery function (the queue of delivery tasks, shared/webhook-functions.ts): the
 * attempt each task asks for, signed and posted, and the next one queued when it failed
 * (shared/webhooks/run-webhook-functions.ts), wired to this stage's stores, queue and target rules.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/http/logger';
import { webhookSecretBox } from '#shared/secrets/webhook-secret-box';
import { webhookOwnHosts, webhookRetrySchedule, webhookTargetRules } from '#shared/settings/webhook-settings';
import { webhookDeliveriesStore, webhookDeliveryQueue, webhookEndpointsStore } from '#shared/store/function-stores';
import { deliverQueuedTasks } from '#shared/webhooks/run-webhook-functions';

const deps = {
  endpoints: webhookEndpointsStore(),
  deliveries: webhookDeliveriesStore(),
  secrets: webhookSecretBox(),
  rules: webhookTargetRules(),
  post: { ownHosts: webhookOwnHosts() },
  schedule: webhookRetrySchedule(),
  queue: webhookDeliveryQueue(),
  logger,
};

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => deliverQueuedTasks(deps, event.Records);
