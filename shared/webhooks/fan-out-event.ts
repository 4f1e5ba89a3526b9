/**
 * An event of a tenant becomes deliveries: one per enabled endpoint subscribed to its type
 * (fan-out.ts), each kept once under its message id, and the tasks that make their attempts. An
 * event met again (a stream's batch retried, a keyed retry replayed) finds its deliveries kept
 * and makes no second one; it still hands back the tasks of those never attempted, since the
 * first pass may have kept them and then failed to queue their tasks, and a second task of one
 * delivery is harmless (deliver-message.ts).
 */
import { messagesFor } from '#shared/domain/webhooks/fan-out';
import type { DeliveryKey, DeliveryTask } from '#shared/domain/webhooks/webhook-delivery';
import type { WebhookEvent } from '#shared/domain/webhooks/webhook-events';
import type { WebhookDeliveriesStore } from '#shared/store/webhook-deliveries-store';
import type { WebhookEndpointsStore } from '#shared/store/webhook-endpoints-store';

export interface FanOutDeps {
  endpoints: Pick<WebhookEndpointsStore, 'list'>;
  deliveries: WebhookDeliveriesStore;
  now?: () => number;
}

/**
 * Keeps the deliveries of `event` and answers the tasks to queue.
 *
 * @example const tasks = await fanOutEvent(deps, 'acme', noteCreated('acme', 'conv-1', note)); await queue.send(tasks);
 */
export async function fanOutEvent(deps: FanOutDeps, tenantId: string, event: WebhookEvent): Promise<DeliveryTask[]> {
  const now = deps.now ?? Date.now;
  const endpoints = await deps.endpoints.list(tenantId);
  const tasks: DeliveryTask[] = [];
  for (const message of messagesFor(event, endpoints)) {
    const key: DeliveryKey = { endpointId: message.endpointId, at: event.timestamp, messageId: message.id };
    const kept = await deps.deliveries.record(
      tenantId,
      { ...key, type: message.type, body: message.body, status: 'pending', attempts: 0 },
      now(),
    );
    if (kept.kind === 'new' || (kept.delivery.status === 'pending' && kept.delivery.attempts === 0))
      tasks.push({ tenantId, key });
  }
  return tasks;
}
