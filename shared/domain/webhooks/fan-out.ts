/**
 * Which of a tenant's endpoints an event goes to (those subscribed to its type and, for a
 * document's, to its collection), and under which message id. The id is derived
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
  /** The collections of its document events; absent, every collection (webhook-endpoint.ts). */
  collections?: readonly string[];
  status: 'enabled' | 'disabled';
}

/** What an event is, for the choice of who takes it: its type, and a document event's collection. */
export interface EventSubject {
  type: WebhookEventType;
  collection?: string;
}

/**
 * Whether an endpoint takes an event: subscribed to its type and, for a document's, to its
 * collection. A document event whose collection is unknown goes only to an endpoint of every collection.
 *
 * @example takesEvent({ events: ['provisioning.document.changed'], collections: ['bots'] }, { type: 'provisioning.document.changed', collection: 'users' }) // false
 */
export function takesEvent(
  endpoint: Pick<EndpointSubscription, 'events' | 'collections'>,
  subject: EventSubject,
): boolean {
  if (!endpoint.events.includes(subject.type)) return false;
  if (subject.type !== 'provisioning.document.changed' || endpoint.collections === undefined) return true;
  return subject.collection !== undefined && endpoint.collections.includes(subject.collection);
}

/**
 * The subject of an event.
 *
 * @example eventSubject(documentChanged('acme', { collection: 'bots', documentId: 'bot-1', etag: 'k3Jv0cQ9', version: 2, change: 'merged' }, at)) // { type: 'provisioning.document.changed', collection: 'bots' }
 */
export function eventSubject(event: WebhookEvent): EventSubject {
  return event.type === 'provisioning.document.changed'
    ? { type: event.type, collection: event.data.collection }
    : { type: event.type };
}

/**
 * The subject of a kept delivery, from its type and the body it sends (`{"type", "timestamp", "data"}`).
 *
 * @example deliverySubject(delivery) // { type: 'note.created' }
 */
export function deliverySubject(delivery: { type: WebhookEventType; body: string }): EventSubject {
  if (delivery.type !== 'provisioning.document.changed') return { type: delivery.type };
  const data = (JSON.parse(delivery.body) as { data?: { collection?: unknown } }).data;
  return typeof data?.collection === 'string'
    ? { type: delivery.type, collection: data.collection }
    : { type: delivery.type };
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
 * The messages of `event`: one per enabled endpoint that takes it, in the endpoints' order.
 *
 * @example messagesFor(noteCreated('acme', 'conv-1', note), endpoints)
 */
export function messagesFor(event: WebhookEvent, endpoints: readonly EndpointSubscription[]): OutgoingMessage[] {
  const key = eventKey(event);
  const body = webhookBody(event);
  const subject = eventSubject(event);
  return endpoints
    .filter((endpoint) => endpoint.status === 'enabled' && takesEvent(endpoint, subject))
    .map((endpoint) => ({ endpointId: endpoint.id, id: webhookMessageId(key, endpoint.id), type: event.type, body }));
}
