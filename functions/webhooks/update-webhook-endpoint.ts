/**
 * PATCH /api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}: changes the fields the body
 * names. A new URL is checked as a registration's is; `status: enabled` resumes a disabled endpoint
 * with its failures forgotten. Every change is authorised for the events the endpoint will have, as
 * read in the store's own read-and-write (a change of URL or status alone would otherwise send them
 * where this key chooses), and the endpoint's collections become those of this key.
 */

import { badRequest, notFound } from '#shared/api/api-error';
import {
  type EndpointChange,
  endpointView,
  type StoredWebhookEndpoint,
} from '#shared/domain/webhooks/webhook-endpoint';
import { authorizeWebhookEvents } from '#shared/http/authorize-webhook-events';
import { createApiHandler } from '#shared/http/create-api-handler';
import { updateWebhookEndpoint } from '#shared/schemas/route-validators.generated';
import { webhookOwnHosts, webhookTargetRules } from '#shared/settings/webhook-settings';
import { webhookEndpointsStore } from '#shared/store/function-stores';
import { checkWebhookTarget } from '#shared/webhooks/post-webhook';

const endpoints = webhookEndpointsStore();
const rules = webhookTargetRules();

export const handler = createApiHandler(updateWebhookEndpoint, async ({ tenantId, caller, path, body, signal }) => {
  if (body.url !== undefined) {
    const target = await checkWebhookTarget(body.url, rules, { ownHosts: webhookOwnHosts() });
    if (!target.ok) throw badRequest(`Field 'url' cannot receive webhooks: ${target.reason}.`);
  }
  const change = (stored: StoredWebhookEndpoint): EndpointChange => ({
    ...body,
    ...(body.events && { events: [...body.events] }),
    collections: authorizeWebhookEvents(caller, body.events ?? stored.events),
  });
  const updated = await endpoints.update(tenantId, path.endpointId, change, new Date(), signal);
  if (!updated) throw notFound(`No webhook endpoint '${path.endpointId}' exists in this tenant.`);
  return { status: 200, body: endpointView(updated) };
});
