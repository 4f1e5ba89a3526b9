/**
 * One message on its way to one endpoint: the body made once, the same `webhook-id` on every
 * attempt, and where it stands (pending an attempt, delivered, or failed with why). A delivery is
 * addressed by its endpoint, the time of its event and its message id, so a tenant's deliveries of
 * an endpoint list newest first and a recover finds those since a time; an event met twice makes
 * the same key, which the store keeps once.
 */
import type { WebhookEventType } from './webhook-events.ts';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** How long a delivery is kept (and listed): what a recover can reach back to. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Where a delivery is: the endpoint, the time of its event, its message id. */
export interface DeliveryKey {
  endpointId: string;
  /** The event's time (ISO 8601), which orders an endpoint's deliveries. */
  at: string;
  messageId: string;
}

export interface WebhookDelivery extends DeliveryKey {
  type: WebhookEventType;
  /** The body, byte for byte what every attempt sends. */
  body: string;
  status: DeliveryStatus;
  /** Attempts made since the delivery was made or last recovered. */
  attempts: number;
  lastAttemptAt?: string;
  /** The receiver's last status, when it answered one. */
  lastStatus?: number;
  /** What the last failed attempt came to, or why the delivery stopped. */
  lastError?: string;
  /** When the next attempt is due, while pending after a failure. */
  nextAttemptAt?: string;
  deliveredAt?: string;
}

/**
 * The sort key of a delivery: its event's time, then its message id (ids hold no `#`).
 *
 * @example deliverySortKey({ endpointId: 'ep_1', at: '2026-11-27T08:00:00.000Z', messageId: 'msg_x' }) // '2026-11-27T08:00:00.000Z#msg_x'
 */
export function deliverySortKey(key: DeliveryKey): string {
  return `${key.at}#${key.messageId}`;
}
