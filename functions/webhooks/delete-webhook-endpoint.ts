/**
 * DELETE /api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}: nothing more is delivered to
 * the endpoint, and its place under the tenant's limit is free again.
 */
import { notFound } from '#shared/api/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { deleteWebhookEndpoint } from '#shared/schemas/route-validators.generated';
import { webhookEndpointsStore } from '#shared/store/function-stores';

const endpoints = webhookEndpointsStore();

export const handler = createApiHandler(deleteWebhookEndpoint, async ({ tenantId, path, signal }) => {
  if (!(await endpoints.remove(tenantId, path.endpointId, signal)))
    throw notFound(`No webhook endpoint '${path.endpointId}' exists in this tenant.`);
  return { status: 204 };
});
