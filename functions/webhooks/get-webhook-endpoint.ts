/** GET /api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}: one endpoint, without its secrets. */

import { notFound } from '#shared/api/api-error';
import { endpointView } from '#shared/domain/webhooks/webhook-endpoint';
import { createApiHandler } from '#shared/http/create-api-handler';
import { getWebhookEndpoint } from '#shared/schemas/route-validators.generated';
import { webhookEndpointsStore } from '#shared/store/function-stores';

const endpoints = webhookEndpointsStore();

export const handler = createApiHandler(getWebhookEndpoint, async ({ tenantId, path, signal }) => {
  const stored = await endpoints.get(tenantId, path.endpointId, signal);
  if (!stored) throw notFound(`No webhook endpoint '${path.endpointId}' exists in this tenant.`);
  return { status: 200, body: endpointView(stored) };
});
