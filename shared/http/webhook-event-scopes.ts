/**
 * Which events a key may subscribe a webhook endpoint to. An event carries what a route of the API
 * answers (webhook-events.ts), so subscribing to it needs that route's scope, held by the key that
 * writes the endpoint: a receiver is told nothing that key could not have read. Documents are read
 * per collection, so a document event is limited to the collections the key may read: the endpoint
 * keeps their names, or none when the key reads every collection.
 */

import { type RouteId, routeById } from '#shared/api/route-table';
import { isScopeGranted, resolveScope } from '#shared/auth/grant-scope';
import { MAX_ENDPOINT_COLLECTIONS } from '#shared/domain/webhooks/webhook-endpoint';
import type { WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import { COLLECTION_NAME } from '#shared/schemas/identifiers';

/** The route whose answer each event carries: subscribing to the event needs its scope. */
export const EVENT_SOURCE_ROUTES = {
  // The note as its 201 answered it: whoever may add a note sees that answer.
  'note.created': 'addInternalNote',
  'voc.job.completed': 'getVocJobStatus',
  'voc.job.failed': 'getVocJobStatus',
  'provisioning.document.changed': 'getCurrentDocument',
} as const satisfies Record<WebhookEventType, RouteId>;

/**
 * What an endpoint written by a key may receive: its events, and for a document's the collections
 * (absent: every one); or the first event the key may not subscribe to and the scope it needs, or
 * too many collections named one by one to keep.
 */
export type Subscription =
  | { kind: 'allowed'; collections?: string[] }
  | { kind: 'denied'; event: WebhookEventType; scope: string }
  | { kind: 'too-many-collections'; count: number };

const isCollection = new RegExp(COLLECTION_NAME);

/**
 * The collections `scopes` may read through `template` (`provisioning:{collection}.read`): `all`
 * when a scope grants it for every collection (`provisioning:read`, `provisioning:*`), else each
 * collection a scope names whose read it grants (`provisioning:bots.read`, `provisioning:bots.*`).
 * A scope naming no collection (`provisioning:*.read`) grants none, as on the API.
 */
export function readableCollections(scopes: readonly string[], template: string): 'all' | string[] {
  const area = template.slice(0, template.indexOf(':'));
  const action = template.slice(template.lastIndexOf('.') + 1);
  // Of the forms that grant `area:<c>.action`, `area:action` and `area:*` name no collection.
  if (isScopeGranted(scopes, `${area}:${action}`)) return 'all';
  const named = scopes.flatMap((scope) => {
    const dot = scope.lastIndexOf('.');
    if (!scope.startsWith(`${area}:`) || dot < 0) return [];
    const collection = scope.slice(area.length + 1, dot);
    const readable = isCollection.test(collection) && isScopeGranted(scopes, resolveScope(template, { collection }));
    return readable ? [collection] : [];
  });
  return [...new Set(named)].sort();
}

/**
 * What an endpoint with `events`, written by a key of `scopes`, may receive.
 *
 * @example subscriptionFor(['cxm:write', 'provisioning:bots.read'], ['note.created', 'provisioning.document.changed']) // { kind: 'allowed', collections: ['bots'] }
 */
export function subscriptionFor(scopes: readonly string[], events: readonly WebhookEventType[]): Subscription {
  let collections: string[] | undefined;
  for (const event of events) {
    const scope = routeById(EVENT_SOURCE_ROUTES[event]).scope;
    if (!scope.includes('{collection}')) {
      if (!isScopeGranted(scopes, scope)) return { kind: 'denied', event, scope };
      continue;
    }
    // A document's scope is per collection: the endpoint is told of those the key reads.
    const readable = readableCollections(scopes, scope);
    if (readable === 'all') continue;
    if (readable.length === 0) return { kind: 'denied', event, scope };
    if (readable.length > MAX_ENDPOINT_COLLECTIONS) return { kind: 'too-many-collections', count: readable.length };
    collections = readable;
  }
  return { kind: 'allowed', ...(collections && { collections }) };
}
