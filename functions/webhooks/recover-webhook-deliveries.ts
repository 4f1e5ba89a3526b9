/**
 * POST /api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}/recover: the endpoint's
 * deliveries that failed, for events since `since`, are pending again with their schedule started
 * over, and their tasks queued (202: they are sent from now on, under their same `webhook-id`). The
 * endpoint must be enabled: a disabled one would refuse them at once.
 */
import { conflict, notFound } from '#shared/http/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { recoverWebhookDeliveries } from '#shared/schemas/route-validators.generated';
import { MAX_RECOVERED_DELIVERIES } from '#shared/schemas/webhook-schemas';
import { webhookDeliveriesStore, webhookDeliveryQueue, webhookEndpointsStore } from '#shared/store/function-stores';

const endpoints = webhookEndpointsStore();
const deliveries = webhookDeliveriesStore();
const queue = webhookDeliveryQueue();

export const handler = createApiHandler(recoverWebhookDeliveries, async ({ tenantId, path, body, signal }) => {
  const endpoint = await endpoints.get(tenantId, path.endpointId, signal);
  if (!endpoint) throw notFound(`No webhook endpoint '${path.endpointId}' exists in this tenant.`);
  if (endpoint.status === 'disabled')
    throw conflict(
      `Webhook endpoint '${path.endpointId}' is disabled (${endpoint.disabledReason ?? 'no reason given'}): enable it (PATCH with "status": "enabled") before recovering its deliveries.`,
    );
  const { recovered, more } = await deliveries.recover(
    tenantId,
    path.endpointId,
    new Date(body.since).toISOString(),
    MAX_RECOVERED_DELIVERIES,
    signal,
  );
  await queue.send(
    recovered.map((key) => ({ tenantId, key })),
    0,
  );
  return { status: 202, body: { recovered: recovered.length, more } };
});
