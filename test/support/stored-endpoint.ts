/**
 * A webhook endpoint as the store keeps it, for tests that put one straight into the store rather
 * than through the API: enabled, stamped now, with a new signing secret kept as it is (as one
 * registered before secrets were sealed is), and the fields given.
 */
import { newEndpointId, type StoredWebhookEndpoint } from '#shared/domain/webhooks/webhook-endpoint';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';

/**
 * @example await api.webhookEndpoints.create(tenant, storedEndpoint({ url, events: ['note.created'] }), { limit: 100 });
 */
export function storedEndpoint(
  fields: Pick<StoredWebhookEndpoint, 'url' | 'events'> & Partial<StoredWebhookEndpoint>,
): StoredWebhookEndpoint {
  const now = new Date();
  return {
    id: newEndpointId(now.getTime()),
    description: '',
    status: 'enabled',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    secrets: { current: newWebhookSecret() },
    ...fields,
  };
}
