/**
 * GET /api/v1/webhooks/tenants/{tenantId}/endpoints/{endpointId}/deliveries: what became of each
 * message to the endpoint, newest event first, a page at a time (`cursor`).
 */

import { badRequest, notFound } from '#shared/api/api-error';
import {
  decodeDeliveryCursor,
  deliverySortKey,
  deliveryView,
  encodeDeliveryCursor,
} from '#shared/domain/webhooks/webhook-delivery';
import { createApiHandler } from '#shared/http/create-api-handler';
import { listWebhookDeliveries } from '#shared/schemas/route-validators.generated';
import { DEFAULT_DELIVERY_LIMIT } from '#shared/schemas/webhook-schemas';
import { webhookDeliveriesStore, webhookEndpointsStore } from '#shared/store/function-stores';

const endpoints = webhookEndpointsStore();
const deliveries = webhookDeliveriesStore();

export const handler = createApiHandler(listWebhookDeliveries, async ({ tenantId, path, query, signal }) => {
  const before = query.cursor === undefined ? undefined : decodeDeliveryCursor(query.cursor);
  if (query.cursor !== undefined && before === undefined)
    throw badRequest("Query parameter 'cursor' is not a cursor of this list; take it from the previous page.");
  if (!(await endpoints.get(tenantId, path.endpointId, signal)))
    throw notFound(`No webhook endpoint '${path.endpointId}' exists in this tenant.`);
  const limit = query.limit === undefined ? DEFAULT_DELIVERY_LIMIT : Number(query.limit);
  const page = await deliveries.list(tenantId, path.endpointId, { limit, before, signal });
  const last = page.deliveries.at(-1);
  return {
    status: 200,
    body: {
      data: page.deliveries.map(deliveryView),
      cursor: page.more && last ? encodeDeliveryCursor(deliverySortKey(last)) : null,
    },
  };
});
