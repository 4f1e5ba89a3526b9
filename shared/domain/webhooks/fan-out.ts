/**
 * Which of a tenant's endpoints an event goes to, and under which message id. The id is derived
 * from the event's own identity and the endpoint, not drawn at random: the stage's events arrive
 * at least once (EventBridge, a queue), and a keyed retry replays a 201 without a second write, so
 * the same event met twice makes the same message, which the delivery store keeps once and a
 * receiver deduplicates by `webhook-id`. Every attempt and every recover sends that id.
 */
import { createHash } from 'node:crypto';
import { type WebhookEvent, type WebhookEventType, webhookBody } from './webhook-events.ts';

/** What fan-out reads of an endpoint. */
export interface EndpointSubscription {
  id: string;
  events: readonly WebhookEventType[];
  status: 'enabled' | 'disabled';
}

/** One message to deliver: the endpoint, the id every attempt carries, the body byte for byte. */
export interface OutgoingMessage {
  endpointId: string;
  id: string;
  type: WebhookEventType;
  body: string;
}

/**
 * The identity of the thing an event tells of: the note, the job's end, the document's version.
 *
 * @example eventKey(noteCreated('acme', 'conv-1', note)) // 'note.created acme conv-1 01JDX…'
 */
export function eventKey(event: WebhookEvent): string {
  switch (event.type) {
    case 'note.created':
      return [event.type, event.data.tenantId, event.data.conversationId, event.data.note.id].join(' ');
    case 'voc.job.completed':
    case 'voc.job.failed':
      return [event.type, event.data.tenantId, event.data.job.id].join(' ');
    case 'provisioning.document.changed':
      return [event.type, event.data.tenantId, event.data.collection, event.data.documentId, event.data.etag].join(' ');
  }
}

/**
 * The message id of an event for one endpoint: `msg_` and 26 characters of a SHA-256 (130 bits),
 * base64url, which holds no `.` (the signed content's separator).
 *
 * @example webhookMessageId('note.created acme conv-1 n-1', 'ep_1') // 'msg_…'
 */
export function webhookMessageId(key: string, endpointId: string): string {
  return `msg_${createHash('sha256').update(`${key}\n${endpointId}`).digest('base64url').slice(0, 26)}`;
}

/**
 * The messages of `event`: one per enabled endpoint subscribed to its type, in the endpoints' order.
 *
 * @example messagesFor(noteCreated('acme', 'conv-1', note), endpoints)
 */
export function messagesFor(event: WebhookEvent, endpoints: readonly EndpointSubscription[]): OutgoingMessage[] {
  const key = eventKey(event);
  const body = webhookBody(event);
  return endpoints
    .filter((endpoint) => endpoint.status === 'enabled' && endpoint.events.includes(event.type))
    .map((endpoint) => ({ endpointId: endpoint.id, id: webhookMessageId(key, endpoint.id), type: event.type, body }));
}
