/**
 * PATCH /api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}: changes the fields the body
 * names. A new URL is checked as a registration's is; `status: enabled` resumes a disabled endpoint
 * with its failures forgotten.
 */
import { endpointView } from '#shared/domain/webhooks/webhook-endpoint';
import { badRequest, notFound } from '#shared/http/api-error';
import { createApiHandler } from '#shared/http/create-api-handler';
import { updateWebhookEndpoint } from '#shared/schemas/route-validators.generated';
import { webhookEndpointsStore } from '#shared/store/function-stores';
import { checkWebhookTarget } from '#shared/webhooks/post-webhook';
import { webhookOwnHosts, webhookTargetRules } from '#shared/webhooks/webhook-settings';

const endpoints = webhookEndpointsStore();
const rules = webhookTargetRules();

export const handler = createApiHandler(updateWebhookEndpoint, async ({ tenantId, path, body, signal }) => {
  if (body.url !== undefined) {
    const target = await checkWebhookTarget(body.url, rules, { ownHosts: webhookOwnHosts() });
    if (!target.ok) throw badRequest(`Field 'url' cannot receive webhooks: ${target.reason}.`);
  }
  const change = { ...body, ...(body.events && { events: [...body.events] }) };
  const updated = await endpoints.update(tenantId, path.endpointId, change, new Date(), signal);
  if (!updated) throw notFound(`No webhook endpoint '${path.endpointId}' exists in this tenant.`);
  return { status: 200, body: endpointView(updated) };
});
