/** GET /api/v1/webhooks/tenants/{tenantId}/endpoints: every endpoint of the tenant, oldest first, without secrets. */
import { endpointView } from '#shared/domain/webhooks/webhook-endpoint';
import { createApiHandler } from '#shared/http/create-api-handler';
import { listWebhookEndpoints } from '#shared/schemas/route-validators.generated';
import { webhookEndpointsStore } from '#shared/store/function-stores';

const endpoints = webhookEndpointsStore();

export const handler = createApiHandler(listWebhookEndpoints, async ({ tenantId, signal }) => ({
  status: 200,
  body: { data: (await endpoints.list(tenantId, signal)).map(endpointView) },
}));
