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

/**
 * How long an attempt's claim on its delivery holds (shared/webhooks/deliver-message.ts): the
 * delivery function's timeout, so no copy of its task posts it again while the run that claimed it
 * may still be posting; once a run that died has let it lapse, a later copy or the sweeper sends it.
 */
export const ATTEMPT_CLAIM_SECONDS = 60;

/** Where a delivery is: the endpoint, the time of its event, its message id. */
export interface DeliveryKey {
  endpointId: string;
  /** The event's time (ISO 8601), which orders an endpoint's deliveries. */
  at: string;
  messageId: string;
}

/** What a delivery function is handed: whose delivery, and where it is. */
export interface DeliveryTask {
  tenantId: string;
  key: DeliveryKey;
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

/** A delivery as the deliveries list shows it: where it stands, not its body. */
export interface DeliveryView {
  /** The message id: every attempt's `webhook-id`. */
  id: string;
  type: WebhookEventType;
  /** When the event happened. */
  eventAt: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt?: string;
  lastStatus?: number;
  lastError?: string;
  nextAttemptAt?: string;
  deliveredAt?: string;
}

/**
 * The delivery as the API shows it.
 *
 * @example page.deliveries.map(deliveryView)
 */
export function deliveryView(delivery: WebhookDelivery): DeliveryView {
  const { messageId, type, at, status, attempts, lastAttemptAt, lastStatus, lastError, nextAttemptAt, deliveredAt } =
    delivery;
  return {
    id: messageId,
    type,
    eventAt: at,
    status,
    attempts,
    ...(lastAttemptAt !== undefined && { lastAttemptAt }),
    ...(lastStatus !== undefined && { lastStatus }),
    ...(lastError !== undefined && { lastError }),
    ...(nextAttemptAt !== undefined && { nextAttemptAt }),
    ...(deliveredAt !== undefined && { deliveredAt }),
  };
}

/** The longest sort key a cursor may name: an ISO time, `#`, a message id. */
const MAX_SORT_KEY_LENGTH = 200;

/**
 * The deliveries list's cursor: opaque to clients, it holds the sort key of the page's last
 * delivery. It needs no signature: the tenant and endpoint come from the authorised path, so it
 * can only say where to resume among the caller's own deliveries.
 *
 * @example encodeDeliveryCursor(deliverySortKey(last))
 */
export function encodeDeliveryCursor(before: string): string {
  return Buffer.from(JSON.stringify({ v: 1, before }), 'utf8').toString('base64url');
}

/**
 * The sort key to resume before, or undefined when the value is not a cursor of this list.
 *
 * @example decodeDeliveryCursor(query.cursor) // '2026-11-27T08:00:00.000Z#msg_…'
 */
export function decodeDeliveryCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const { v, before } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: unknown;
      before?: unknown;
    };
    return v === 1 && typeof before === 'string' && before.includes('#') && before.length <= MAX_SORT_KEY_LENGTH
      ? before
      : undefined;
  } catch {
    return undefined;
  }
}
